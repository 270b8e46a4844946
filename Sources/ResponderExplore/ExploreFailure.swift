/// What an explored action broke (SPEC §3.5 checks).
package struct ExploreFailure: Sendable, Equatable {
    package enum Kind: String, Sendable {
        /// A `LuaError` was reported (a runtime error in a responder, action or callback).
        case luaError
        /// A relaxed-mode safety violation was recorded.
        case violation
        /// An `explore.invariant` did not hold.
        case invariant
        /// The action itself raised (a strict violation, an error escaping to the caller).
        case error
        /// A sandbox limit or the run's time limit.
        case limit
    }

    package var kind: Kind
    /// What makes two failures "the same" while shrinking: the kind plus the violation kind and
    /// type, the invariant's name, or the error's location and first words (never values,
    /// which change as the sequence shrinks).
    package var identity: String
    /// The full message.
    package var message: String
    /// The failing step's trace (`tostring(lastTrace)`), when it dispatched.
    package var trace: String?

    package init(kind: Kind, identity: String, message: String, trace: String? = nil) {
        self.kind = kind
        self.identity = identity
        self.message = message
        self.trace = trace
    }

    /// Same kind and identity.
    package func sameAs(_ other: ExploreFailure) -> Bool { kind == other.kind && identity == other.identity }

    /// The identity of an error message: its `file:line:` (when it starts with one) and its text
    /// up to the first value (`{`, `(`, `"`, `'`), each run of digits read as `#`: the same line
    /// failing with other numbers in its text (`n is 3`, then `n is 45`) is the same failure, so
    /// that shrinking keeps it, while other words (a helper raising for two causes) are not. An
    /// address (`table: 0x55d3…`) reads as one number.
    package static func identity(ofMessage message: String) -> String {
        let firstLine = message.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? message
        var place = ""
        var text = Substring(firstLine)
        if let loc = messageLocation(firstLine), firstLine.hasPrefix(loc + ":") {
            place = loc
            text = text.dropFirst(loc.count + 1)
        }
        let cut = text.firstIndex { "{(\"'".contains($0) } ?? text.endIndex
        var words = ""
        var inDigits = false
        var inAddress = false  // `0x55d3…`: an address (a table's, in its default text) is a number too
        let chars = Array(text[..<cut])
        for (i, ch) in chars.enumerated() {
            if inAddress, ch.isHexDigit { continue }
            inAddress = false
            if ch == "x", inDigits, i >= 1, chars[i - 1] == "0", i + 1 < chars.count, chars[i + 1].isHexDigit {
                inAddress = true
                continue
            }
            if ch.isASCII && ch.isNumber {
                if !inDigits { words.append("#") }
                inDigits = true
            } else {
                words.append(ch)
                inDigits = false
            }
        }
        words = Substring(words).trimmingCharacters(" ")
        return place.isEmpty ? words : "\(place): \(words)"
    }
}

/// `file:line` at the start of a Lua error message (`path/x.lua:12: text`), if any.
func messageLocation(_ message: String) -> String? {
    var idx = message.startIndex
    while let colon = message[idx...].firstIndex(of: ":") {
        let after = message.index(after: colon)
        var end = after
        while end < message.endIndex, message[end].isASCII, message[end].isNumber { end = message.index(after: end) }
        if end > after, end < message.endIndex, message[end] == ":" { return String(message[..<end]) }
        idx = after
        if message[..<colon].contains(" ") { break }
    }
    return nil
}

extension Substring {
    func trimmingCharacters(_ set: Character) -> String {
        var s = self
        while s.first == set { s = s.dropFirst() }
        while s.last == set { s = s.dropLast() }
        return String(s)
    }
}
