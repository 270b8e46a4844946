/// The executable lines of a Lua 5.4 chunk, read from its binary dump (`lua_dump` with debug
/// information): for every function prototype, the line of each instruction, computed as Lua's
/// own `collectvalidlines` does (a vararg function's first instruction, `VARARGPREP`, is skipped).
///
/// The public C API reaches nested prototypes only through closures that exist; the dump holds
/// them all, so lines inside functions that never ran are known too (true misses). A line scanner
/// (luacov's approach) cannot know what the compiler emitted; this can.
public enum BytecodeLines {
    /// What went wrong reading a dump (never expected for a dump made by the same Lua).
    public struct Malformed: Error, Equatable {
        public let offset: Int
    }

    /// The sorted executable lines of the chunk in `dump`.
    public static func activeLines(_ dump: [UInt8]) throws(Malformed) -> [Int] {
        var reader = Reader(bytes: dump)
        try reader.header()
        _ = try reader.byte()  // size of the main closure's upvalues
        var lines = Set<Int>()
        try reader.function(into: &lines)
        return lines.sorted()
    }

    /// Lines of each function's definition `(linedefined, lastlinedefined)` for every nested
    /// prototype (the main chunk excluded), in dump order.
    struct Reader {
        let bytes: [UInt8]
        var offset = 0
        var instructionSize = 4
        var integerSize = 8
        var numberSize = 8

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func byte() throws(Malformed) -> UInt8 {
            guard offset < bytes.count else { throw Malformed(offset: offset) }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func skip(_ n: Int) throws(Malformed) {
            guard n >= 0, offset + n <= bytes.count else { throw Malformed(offset: offset) }
            offset += n
        }

        /// `dumpSize`: big-endian groups of 7 bits, the last byte marked with 0x80.
        mutating func size() throws(Malformed) -> Int {
            var x = 0
            while true {
                let b = try byte()
                guard x <= (Int.max >> 7) else { throw Malformed(offset: offset) }
                x = (x << 7) | Int(b & 0x7f)
                if b & 0x80 != 0 { return x }
            }
        }

        mutating func string() throws(Malformed) {
            let n = try size()
            if n > 0 { try skip(n - 1) }
        }

        mutating func header() throws(Malformed) {
            let signature: [UInt8] = [0x1b, 0x4c, 0x75, 0x61]
            for s in signature where try byte() != s { throw Malformed(offset: offset - 1) }
            guard try byte() == 0x54, try byte() == 0 else { throw Malformed(offset: offset - 1) }
            try skip(6)  // LUAC_DATA
            instructionSize = Int(try byte())
            integerSize = Int(try byte())
            numberSize = Int(try byte())
            try skip(integerSize + numberSize)  // LUAC_INT, LUAC_NUM
        }

        mutating func function(into lines: inout Set<Int>) throws(Malformed) {
            try string()  // source
            let lineDefined = try size()
            _ = try size()  // lastlinedefined
            _ = try byte()  // numparams
            let isVararg = try byte() != 0
            _ = try byte()  // maxstacksize
            let codeCount = try size()
            try skip(codeCount * instructionSize)
            let constants = try size()
            for _ in 0..<constants {
                switch try byte() {
                case 3: try skip(integerSize)  // integer
                case 19: try skip(numberSize)  // float
                case 4, 20: try string()  // short and long strings
                default: break  // nil, false, true
                }
            }
            let upvalues = try size()
            try skip(upvalues * 3)
            let protos = try size()
            for _ in 0..<protos { try function(into: &lines) }
            // debug information
            let lineInfoCount = try size()
            let lineInfoStart = offset
            try skip(lineInfoCount)
            let absCount = try size()
            var absolute: [(pc: Int, line: Int)] = []
            absolute.reserveCapacity(absCount)
            for _ in 0..<absCount { absolute.append((try size(), try size())) }
            let locals = try size()
            for _ in 0..<locals {
                try string()
                _ = try size()
                _ = try size()
            }
            let upvalueNames = try size()
            for _ in 0..<upvalueNames { try string() }
            // the line of each instruction
            var line = lineDefined
            var nextAbsolute = 0
            for pc in 0..<lineInfoCount {
                let delta = Int8(bitPattern: bytes[lineInfoStart + pc])
                if delta == -128 {
                    while nextAbsolute < absolute.count && absolute[nextAbsolute].pc < pc { nextAbsolute += 1 }
                    guard nextAbsolute < absolute.count, absolute[nextAbsolute].pc == pc else {
                        throw Malformed(offset: lineInfoStart + pc)
                    }
                    line = absolute[nextAbsolute].line
                } else {
                    line += Int(delta)
                }
                if pc == 0 && isVararg { continue }
                if line > 0 { lines.insert(line) }
            }
        }
    }
}
