// The names `scripts/types/responder.lua` (the lua-language-server definition file) declares, read
// from its text: what `DefinitionFileTests` compares with the runtime's names.

/// The names a LuaLS definition file declares.
struct DefinitionFile {
    /// Top-level `function X(` and `X = …`.
    var globals: Set<String> = []
    /// `function responder.x(`, `responder.x = …` and the `---@field`s of `---@class responder`.
    var moduleFields: Set<String> = []
    /// `function Node:x(`.
    var nodeMethods: Set<String> = []
    /// `function assert.x(` and `function assert:x(`.
    var assertFunctions: Set<String> = []
    /// Every `---@class Name[: Parent]` with its `---@field` names.
    var classes: [String: (parent: String?, fields: [String])] = [:]

    init(_ text: String) {
        var currentClass: String?
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(raw)
            if let rest = Self.after("---@class ", in: line) {
                // `Name`, `Name: Parent`, `Name: Parent, Other`, then perhaps a description
                let parts = rest.split(separator: ":", maxSplits: 1)
                guard let name = parts.first.flatMap({ Self.identifier(at: $0.trimmingSpaces()) }) else { continue }
                let parent = parts.count > 1 ? Self.identifier(at: parts[1].trimmingSpaces()) : nil
                classes[name] = (parent, classes[name]?.fields ?? [])
                currentClass = name
                continue
            }
            if let cls = currentClass, let rest = Self.after("---@field ", in: line) {
                if let field = Self.identifier(at: rest) ?? Self.quotedKey(at: rest) {
                    classes[cls]?.fields.append(field)
                }
                continue
            }
            if !line.hasPrefix("---") { currentClass = nil }
            if let rest = Self.after("function responder.", in: line), let name = Self.identifier(at: rest, then: "(") {
                moduleFields.insert(name)
            } else if let rest = Self.after("responder.", in: line), let name = Self.identifier(at: rest, then: " =") {
                moduleFields.insert(name)
            } else if let rest = Self.after("function Node:", in: line), let name = Self.identifier(at: rest, then: "(")
            {
                nodeMethods.insert(name)
            } else if let rest = Self.after("function assert.", in: line) ?? Self.after("function assert:", in: line),
                let name = Self.identifier(at: rest, then: "(")
            {
                assertFunctions.insert(name)
            } else if let rest = Self.after("function ", in: line), let name = Self.identifier(at: rest, then: "(") {
                globals.insert(name)
            } else if let name = Self.identifier(at: line, then: " =") {
                globals.insert(name)
            }
        }
        moduleFields.formUnion(classes["responder"]?.fields ?? [])
    }

    /// The fields of class `name` and of the classes it derives from.
    func fields(ofClass name: String) -> Set<String> {
        var result: Set<String> = []
        var current: String? = name
        var seen: Set<String> = []
        while let c = current, !seen.contains(c), let cls = classes[c] {
            seen.insert(c)
            result.formUnion(cls.fields)
            current = cls.parent
        }
        return result
    }

    /// The text after `prefix` when `line` starts with it.
    static func after(_ prefix: String, in line: String) -> String? {
        line.hasPrefix(prefix) ? String(line.dropFirst(prefix.count)) : nil
    }

    /// The name of a `["name"]` key (Lua keywords: `---@field ["nil"] …`) at the start of `s`.
    static func quotedKey(at s: String) -> String? {
        guard s.hasPrefix("[\""), let end = s.dropFirst(2).firstRange(of: "\"]") else { return nil }
        let name = String(s.dropFirst(2)[..<end.lowerBound])
        return name.isEmpty ? nil : name
    }

    /// The Lua identifier `s` starts with, when `then` follows it (or anything, for "").
    static func identifier(at s: String, then terminator: String = "") -> String? {
        var name = ""
        for c in s {
            guard c == "_" || (c.isASCII && (c.isLetter || (c.isNumber && !name.isEmpty))) else { break }
            name.append(c)
        }
        guard !name.isEmpty, s.dropFirst(name.count).hasPrefix(terminator) else { return nil }
        return name
    }
}

extension StringProtocol {
    func trimmingSpaces() -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
