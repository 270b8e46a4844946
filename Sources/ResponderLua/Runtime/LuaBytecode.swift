/// Lua 5.4 bytecode as `lua_dump` writes it (`ldump.c`), read far enough to drop the names in its
/// debug information: the local variables' and the upvalues'. Line information and the source
/// name stay, so errors and tracebacks still say `file:line:`; what goes is the `(local 'x')` of a
/// message about a nil local, and the names `debug.getlocal` would give.
///
/// Loading a chunk interns every such name as a Lua string; for the test framework, undumped in
/// each spec file's fresh state, they are most of its strings (about 1,050 of 1,700) and most of
/// its load time.
public enum LuaBytecode {
    /// `bytecode` without local and upvalue names, or nil when it is not the Lua 5.4 format this
    /// reader knows (then use it as it is).
    public static func withoutNames(_ bytecode: [UInt8]) -> [UInt8]? {
        var reader = Reader(bytes: bytecode)
        var out: [UInt8] = []
        out.reserveCapacity(bytecode.count)
        guard reader.header(into: &out), reader.function(into: &out), reader.position == bytecode.count
        else { return nil }
        return out
    }

    /// A pass over the dump that copies what it reads to `out`, except the names.
    private struct Reader {
        let bytes: [UInt8]
        var position = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        /// The 31-byte header of Lua 5.4 (`\x1bLua`, version 0x54, format 0, the check data, the
        /// sizes 4, 8, 8 and the check numbers) and the main closure's upvalue count.
        mutating func header(into out: inout [UInt8]) -> Bool {
            let expected: [UInt8] = [0x1B, 0x4C, 0x75, 0x61, 0x54, 0x00, 0x19, 0x93, 0x0D, 0x0A, 0x1A, 0x0A, 4, 8, 8]
            guard bytes.count > 32, Array(bytes[0..<15]) == expected else { return false }
            out += bytes[0..<32]
            position = 32
            return true
        }

        /// A size as `dumpSize` writes it: 7 bits a byte, most significant first, the last byte
        /// marked with 0x80.
        mutating func size() -> Int? {
            var value = 0
            for _ in 0..<10 {
                guard position < bytes.count else { return nil }
                let b = bytes[position]
                position += 1
                guard value <= (Int.max >> 7) else { return nil }
                value = (value << 7) | Int(b & 0x7F)
                if b & 0x80 != 0 { return value }
            }
            return nil
        }

        /// Writes a size as `dumpSize` does (only 0 is written here: an empty list).
        static func append(size: Int, to out: inout [UInt8]) {
            var shift = 0
            while size >> (shift + 7) != 0 { shift += 7 }
            while shift > 0 {
                out.append(UInt8((size >> shift) & 0x7F))
                shift -= 7
            }
            out.append(UInt8(size & 0x7F) | 0x80)
        }

        /// Copies the next `count` bytes.
        mutating func copy(_ count: Int, into out: inout [UInt8]) -> Bool {
            guard count >= 0, count <= bytes.count - position else { return false }
            out.append(contentsOf: bytes[position..<(position + count)])
            position += count
            return true
        }

        /// Skips the next `count` bytes.
        mutating func skip(_ count: Int) -> Bool {
            guard count >= 0, count <= bytes.count - position else { return false }
            position += count
            return true
        }

        /// Copies a size, as it is written, and returns it.
        mutating func copySize(into out: inout [UInt8]) -> Int? {
            let start = position
            guard let n = size() else { return nil }
            out.append(contentsOf: bytes[start..<position])
            return n
        }

        /// Copies a string (its size plus one, 0 for none, then its bytes).
        mutating func copyString(into out: inout [UInt8]) -> Bool {
            guard let n = copySize(into: &out) else { return false }
            return n == 0 || copy(n - 1, into: &out)
        }

        /// Skips a string.
        mutating func skipString() -> Bool {
            guard let n = size() else { return false }
            return n == 0 || skip(n - 1)
        }

        /// One function (`dumpFunction`) and the functions nested in it, walked with a stack of
        /// the nested functions still to read at each open level (no recursion).
        mutating func function(into out: inout [UInt8]) -> Bool {
            guard let protos = head(into: &out) else { return false }
            var pending = [protos]
            while let remaining = pending.last {
                if remaining > 0 {
                    pending[pending.count - 1] -= 1
                    guard let nested = head(into: &out) else { return false }
                    pending.append(nested)
                } else {
                    pending.removeLast()
                    guard debug(into: &out) else { return false }
                }
            }
            return true
        }

        /// A function up to its nested functions: source, lines defined, numparams, is_vararg,
        /// maxstacksize, code, constants, upvalues; returns how many nested functions follow.
        mutating func head(into out: inout [UInt8]) -> Int? {
            guard copyString(into: &out), copySize(into: &out) != nil, copySize(into: &out) != nil,
                copy(3, into: &out),
                let code = copySize(into: &out), code <= bytes.count / 4, copy(code * 4, into: &out),
                let constants = copySize(into: &out)
            else { return nil }
            for _ in 0..<constants {
                guard position < bytes.count else { return nil }
                let tag = bytes[position]
                guard copy(1, into: &out) else { return nil }
                switch tag {
                case 0x00, 0x01, 0x11: continue  // nil, false, true
                case 0x03, 0x13: guard copy(8, into: &out) else { return nil }  // integer, float
                case 0x04, 0x14: guard copyString(into: &out) else { return nil }  // strings
                default: return nil
                }
            }
            guard let upvalues = copySize(into: &out), upvalues <= bytes.count / 3, copy(upvalues * 3, into: &out)
            else { return nil }
            return copySize(into: &out)
        }

        /// A function's debug information: line information copied, local and upvalue names
        /// dropped (written as empty lists).
        mutating func debug(into out: inout [UInt8]) -> Bool {
            guard let lines = copySize(into: &out), copy(lines, into: &out),
                let absolute = copySize(into: &out)
            else { return false }
            for _ in 0..<absolute {
                guard copySize(into: &out) != nil, copySize(into: &out) != nil else { return false }
            }
            guard let locals = size() else { return false }
            for _ in 0..<locals {
                guard skipString(), size() != nil, size() != nil else { return false }
            }
            guard let names = size() else { return false }
            for _ in 0..<names {
                guard skipString() else { return false }
            }
            Self.append(size: 0, to: &out)
            Self.append(size: 0, to: &out)
            return true
        }
    }
}
