import ResponderTesting
import Testing

@testable import ResponderKit
@testable import ResponderLua

#if canImport(Glibc)
    import Glibc
#endif

// The editor files (`scripts/types/responder.lua` for lua-language-server, `scripts/types/luacheckrc.lua`
// for luacheck) against the runtime, both ways: every name the runtime has is declared, and every
// declared name exists. The runtime's names are enumerated, not listed here: `pairs(_G)` and
// `pairs(require "responder")` under `responder run`, `pairs(_ENV)` and luassert's namespaces inside
// a spec under `responder test`, the node methods the module and the kit create, and the node fields
// they answer (each read on a node of every kind, so the lists cannot claim a field that is not there).

enum TypesHarness: ResponderHarness {
    static let folderPrefix = "/tmp/responder-types-"

    /// Runs `responder ARGS` inside `dir`; fails the test unless it exits 0.
    static func run(_ args: [String], in dir: String) throws -> String {
        let out = try shell(args, in: dir, prefix: "")
        guard out.termination == .exited(0) else {
            throw HarnessFailure(
                description: "responder \(args.joined(separator: " ")) failed: \(out.stdout)\n\(out.stderr)")
        }
        return out.stdout
    }

    /// The second words of the output lines whose first word is `tag` (`tag name`).
    static func names(_ output: String, _ tag: String) -> Set<String> {
        var result: Set<String> = []
        for line in output.split(separator: "\n") {
            let words = line.split(separator: "\t")
            if words.count == 2, words[0] == tag { result.insert(String(words[1])) }
        }
        return result
    }

    static func repository() -> String { GraphHarness.repository() }
}

/// What a script sees of Lua itself (the standard library and the standalone interpreter's `arg`):
/// not the runtime's own names.
private let luaNames: Set<String> = [
    "_G", "_VERSION", "arg", "assert", "collectgarbage", "dofile", "error", "getmetatable", "ipairs", "load",
    "loadfile", "next", "pairs", "pcall", "print", "rawequal", "rawget", "rawlen", "rawset", "require", "select",
    "setmetatable", "tonumber", "tostring", "type", "warn", "xpcall",
    "coroutine", "debug", "io", "math", "os", "package", "string", "table", "utf8",
]

/// The node kinds the field probe builds, with the definition file's class for each.
private let probedKinds: [(kind: String, className: String)] = [
    ("View", "Node"), ("AsyncButton", "AsyncButtonNode"), ("Button", "ButtonNode"), ("TextField", "TextFieldNode"),
    ("SecureField", "SecureFieldNode"), ("Slider", "SliderNode"), ("Stepper", "StepperNode"),
    ("Toggle", "ToggleNode"), ("SegmentedControl", "SegmentedControlNode"),
]

/// A `responder run` script printing `global NAME`, `module NAME` and `field KIND NAME` (for each
/// candidate that reads as a value, not nil and not a function, on a mounted node of that kind).
private func runProbe(candidates: [String]) -> String {
    let list = candidates.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
    return """
        for k in pairs(_G) do print("global\\t" .. k) end
        for k in pairs(require "responder") do print("module\\t" .. k) end
        local candidates = { \(list) }
        local s, n, b = State("x"), State(1), State(true)
        local nodes = {
          View = View "V" { id = "v" },
          AsyncButton = AsyncButton "A" { id = "a", action = function() end },
          Button = Button "B" { id = "b", action = function() end },
          TextField = TextField "T" { id = "t", text = s:binding() },
          SecureField = SecureField "S" { id = "s", text = s:binding() },
          Slider = Slider "Sl" { id = "sl", value = n:binding(), range = { 0, 10 }, step = 1 },
          Stepper = Stepper "St" { id = "st", value = n:binding(), range = { 0, 10 }, step = 1 },
          Toggle = Toggle "To" { id = "to", isOn = b:binding() },
          SegmentedControl = SegmentedControl "Sc" { id = "sc", segments = { { title = "one" }, { title = "two" } } },
        }
        local root = View "Root" {}
        for _, node in pairs(nodes) do root:add(node) end
        mount(root)
        selectSegment(nodes.SegmentedControl, 1)
        for kind, node in pairs(nodes) do
          for _, name in ipairs(candidates) do
            local v = node[name]
            if v ~= nil and type(v) ~= "function" then print("field\\t" .. kind .. "." .. name) end
          end
        end
        """
}

/// A spec printing `testglobal NAME` for every name a test sees that is not the plain global (or is
/// not one), and luassert's registered `assertion`s and `modifier`s and the `assertfield`s of `assert`.
private let testProbe = """
    describe("probe", function()
      it("lists", function()
        for k, v in pairs(_ENV) do
          if rawget(_G, k) ~= v then print("testglobal\\t" .. k) end
        end
        -- an unknown assertion name loads every lazily loaded part (assertions live in several)
        pcall(function() assert.is_no_such_assertion(1) end)
        local namespaces = require "luassert.namespaces"
        for k in pairs(namespaces.assertion) do print("assertion\\t" .. k) end
        for k in pairs(namespaces.modifier) do print("modifier\\t" .. k) end
        for k in pairs(assert) do print("assertfield\\t" .. k) end
      end)
    end)
    """

/// The runtime's names, enumerated.
struct RuntimeNames {
    var globals: Set<String>
    var moduleFields: Set<String>
    var testGlobals: Set<String>
    var assertions: Set<String>
    var modifiers: Set<String>
    var assertFields: Set<String>
    /// `KIND.NAME` for every candidate field readable on a node of that kind.
    var readableFields: Set<String>

    static func enumerate(candidateFields: [String]) throws -> RuntimeNames {
        let dir = try TypesHarness.folder([
            "probe.lua": runProbe(candidates: candidateFields), "probe_spec.lua": testProbe,
        ])
        let run = try TypesHarness.run(["run", "probe.lua"], in: dir)
        let test = try TypesHarness.run(["test", "probe_spec.lua"], in: dir)
        let globals = TypesHarness.names(run, "global").subtracting(luaNames)
        return RuntimeNames(
            globals: globals, moduleFields: TypesHarness.names(run, "module"),
            testGlobals: TypesHarness.names(test, "testglobal").subtracting(globals),
            assertions: TypesHarness.names(test, "assertion"), modifiers: TypesHarness.names(test, "modifier"),
            assertFields: TypesHarness.names(test, "assertfield"), readableFields: TypesHarness.names(run, "field"))
    }
}

/// The node methods the module and its extension (the kit) create on first use.
private func runtimeNodeMethods() -> Set<String> {
    let kit = PatternKit()
    return Set(ResponderModule.nodeMethods.map(\.0)).union(kit.methods.map(\.0)).union(kit.luaMethodNames)
}

/// The node fields the runtime answers on a node of `kind` (a `probedKinds` kind).
private func runtimeFields(of kind: String) -> Set<String> {
    var result = Set(NodeBinding.fieldNames)
    for (name, scope) in ControlsBinding.fields {
        switch scope {
        case .everyNode: result.insert(name)
        case .asyncButton: if kind == "AsyncButton" { result.insert(name) }
        case .controls(let kinds): if kinds.contains(where: { $0.name == kind }) { result.insert(name) }
        }
    }
    return result
}

/// Whether luassert resolves `name` (`is_not_nil`, `has_no_error`, `error_matches`): its `_`-separated
/// words split into runs that each name an assertion or a modifier.
private func resolves(_ name: String, words known: Set<String>) -> Bool {
    let words = name.lowercased().split(separator: "_").map(String.init)
    guard !words.isEmpty else { return false }
    var reachable = Array(repeating: false, count: words.count + 1)
    reachable[0] = true
    for end in 1...words.count {
        for start in 0..<end where reachable[start] {
            if known.contains(words[start..<end].joined(separator: "_")) {
                reachable[end] = true
                break
            }
        }
    }
    return reachable[words.count]
}

/// "missing …; extra …" for two sets, empty when equal.
private func difference(
    _ runtime: Set<String>, _ declared: Set<String>, _ what: String,
    has: String = "the runtime has", lacks: String = "the file does not declare",
    declares: String = "the file declares", lacksToo: String = "the runtime does not have"
) -> String {
    var parts: [String] = []
    let missing = runtime.subtracting(declared).sorted()
    let extra = declared.subtracting(runtime).sorted()
    if !missing.isEmpty { parts.append("\(what) \(has) but \(lacks): \(missing.joined(separator: ", "))") }
    if !extra.isEmpty { parts.append("\(what) \(declares) but \(lacksToo): \(extra.joined(separator: ", "))") }
    return parts.joined(separator: "; ")
}

private let loaded = Result { try DefinitionFileTests.load() }

@Suite("Editor definition file and luacheck configuration match the runtime")
struct DefinitionFileTests {
    static let definitionPath = "scripts/types/responder.lua"
    static let luacheckPath = "scripts/types/luacheckrc.lua"

    let definition: DefinitionFile
    let runtime: RuntimeNames

    init() throws {
        (definition, runtime) = try loaded.get()
    }

    /// Reads the definition file and enumerates the runtime (once for all the tests).
    static func load() throws -> (DefinitionFile, RuntimeNames) {
        let root = TypesHarness.repository()
        guard let text = TypesHarness.read(root + "/" + definitionPath) else {
            throw HarnessFailure(description: "cannot read \(definitionPath)")
        }
        let definition = DefinitionFile(text)
        var candidates = Set(NodeBinding.fieldNames).union(ControlsBinding.fields.keys)
        for (_, className) in probedKinds { candidates.formUnion(definition.fields(ofClass: className)) }
        return (definition, try RuntimeNames.enumerate(candidateFields: Array(candidates)))
    }

    @Test func globals() {
        let runtimeGlobals = runtime.globals.union(runtime.testGlobals)
        #expect(
            runtime.globals.contains("View") && runtime.testGlobals.contains("describe"), "the probes listed nothing")
        let diff = difference(runtimeGlobals, definition.globals, "globals")
        #expect(diff.isEmpty, Comment(rawValue: diff))
    }

    @Test func moduleFields() {
        #expect(runtime.moduleFields.contains("reset"), "the probe listed nothing")
        let diff = difference(runtime.moduleFields, definition.moduleFields, "fields of require \"responder\"")
        #expect(diff.isEmpty, Comment(rawValue: diff))
    }

    @Test func nodeMethods() {
        let diff = difference(runtimeNodeMethods(), definition.nodeMethods, "node methods (function Node:x)")
        #expect(diff.isEmpty, Comment(rawValue: diff))
    }

    /// Per kind: the fields the runtime's lists give (core and kit) are exactly the fields readable on
    /// such a node, and exactly the `---@field`s of the file's class for that kind.
    @Test(arguments: probedKinds.map(\.kind))
    func nodeFields(kind: String) throws {
        let className = try #require(probedKinds.first { $0.kind == kind }?.className)
        let listed = runtimeFields(of: kind)
        let readable = Set(
            runtime.readableFields.compactMap { entry -> String? in
                let parts = entry.split(separator: ".", maxSplits: 1)
                return parts.count == 2 && parts[0] == kind ? String(parts[1]) : nil
            })
        #expect(listed.contains("name"), "no fields listed for \(kind)")
        let lists = difference(
            readable, listed, "fields of \(kind)", has: "a node has",
            lacks: "NodeBinding.fieldNames/ControlsBinding.fields do not list",
            declares: "NodeBinding.fieldNames/ControlsBinding.fields list", lacksToo: "a node does not have")
        #expect(lists.isEmpty, Comment(rawValue: lists))
        let diff = difference(
            listed, definition.fields(ofClass: className), "fields of \(kind) (---@class \(className))")
        #expect(diff.isEmpty, Comment(rawValue: diff))
    }

    /// `assert.X` as the file declares it (functions on `assert`, fields of `AssertChain` and of the
    /// `assert` class): every registered assertion and modifier and every field of the assert table is
    /// declared, and every declared name is a field of `assert` or resolves through luassert's words.
    @Test func assertions() {
        let declared = definition.assertFunctions
            .union(definition.fields(ofClass: "AssertChain")).union(definition.fields(ofClass: "assert"))
        #expect(
            runtime.assertions.contains("near") && runtime.assertions.contains("handled"), "the probe listed nothing")
        let registered = runtime.assertions.union(runtime.modifiers).union(runtime.assertFields)
        let missing = registered.subtracting(declared).sorted()
        #expect(
            missing.isEmpty,
            "assertions the runtime has but the file does not declare: \(missing.joined(separator: ", "))")
        let words = runtime.assertions.union(runtime.modifiers)
        let unknown = declared.filter { !runtime.assertFields.contains($0) && !resolves($0, words: words) }.sorted()
        #expect(
            unknown.isEmpty,
            "assertions the file declares but the runtime does not have: \(unknown.joined(separator: ", "))")
    }

    /// The shipped luacheck configuration: its `read_globals` are exactly the runtime's globals, its
    /// std brings Lua 5.4 and busted; with luacheck installed, a file reading every runtime and test
    /// global passes it and one reading an unknown name does not.
    @Test func luacheckConfiguration() throws {
        let root = TypesHarness.repository()
        let text = try #require(TypesHarness.read(root + "/" + Self.luacheckPath))
        let listed = Self.readGlobals(in: text)
        let diff = difference(runtime.globals, Set(listed), "read_globals in \(Self.luacheckPath)")
        #expect(diff.isEmpty, Comment(rawValue: diff))
        #expect(listed.count == Set(listed).count, "read_globals lists a name twice")
        #expect(text.contains("std = \"lua54+busted\""))

        guard let probe = TestProcess.run("/bin/sh", ["-c", "command -v luacheck"]), probe.termination == .exited(0)
        else {
            return  // scripts/test installs luacheck
        }
        let names = runtime.globals.union(runtime.testGlobals).sorted()
        let uses = "local _ = {\n" + names.map { "  \($0),\n" }.joined() + "}\n"
        let dir = try TypesHarness.folder(["uses.lua": uses, "unknown.lua": "local _ = { Viewx }\n"])
        let config = TypesHarness.quote(root + "/" + Self.luacheckPath)
        for (file, clean) in [("uses.lua", true), ("unknown.lua", false)] {
            let out = try #require(
                TestProcess.run(
                    "/bin/sh",
                    [
                        "-c",
                        "cd \(TypesHarness.quote(dir)) && exec luacheck --no-color --config \(config) \(file)",
                    ]))
            #expect((out.termination == .exited(0)) == clean, "luacheck \(file): \(out.stdout)")
        }
    }

    /// The quoted names of the `read_globals = { … }` list.
    static func readGlobals(in text: String) -> [String] {
        guard let start = text.firstRange(of: "read_globals = {"),
            let end = text[start.upperBound...].firstIndex(of: "}")
        else { return [] }
        var names: [String] = []
        var current: String?
        for c in text[start.upperBound..<end] {
            if c == "\"" {
                if let name = current {
                    names.append(name)
                    current = nil
                } else {
                    current = ""
                }
            } else if current != nil {
                current!.append(c)
            }
        }
        return names
    }
}
