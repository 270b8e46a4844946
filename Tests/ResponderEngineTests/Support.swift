import ResponderEngine

/// Event and error types shared by the tests.
enum T {
    static let itemSelected = ValueType(name: "ItemSelected", kind: .event)
    static let firstEvent = ValueType(name: "FirstEvent", kind: .event)
    static let base = ValueType(name: "Base", kind: .event)
    static let sub = ValueType(name: "Sub", kind: .event, parent: base)
    static let other = ValueType(name: "Other", kind: .event)
    static let failure = ValueType(name: "Failure", kind: .error)
    static let subFailure = ValueType(name: "SubFailure", kind: .error, parent: failure)
    static let otherFailure = ValueType(name: "OtherFailure", kind: .error)
    static let alertable = ValueType(name: "ShowMe", kind: .error, alertable: true)
}

/// A value with string fields.
func value(_ type: ValueType, _ fields: [String: String] = [:]) -> Value {
    Value(type: type, payload: fields.isEmpty ? nil : FieldsPayload(strings: fields))
}

/// A call log shared by responder closures.
final class Log {
    var lines: [String] = []
    func add(_ line: String) { lines.append(line) }
}

/// `Root > Grid > Item#b`, unmounted.
struct SampleTree {
    let root = Node(name: "Root")
    let grid = Node(name: "Grid")
    let item = Node(name: "Item", id: "b")

    init() {
        try! root.add(grid)
        try! grid.add(item)
    }
}

/// Registers a responder with a logging body.
@discardableResult
func on(
    _ node: Node, _ kind: ResponderKind, _ filter: ValueType? = nil, id: String? = nil,
    once: Bool = false, log: Log? = nil, name: String? = nil,
    _ result: @escaping (Value, DispatchContext) -> ResponderResult = { _, _ in .notHandled }
)
    -> ResponderEntry
{
    node.addResponder(
        ResponderEntry(kind: kind, filter: filter, id: id, once: once) { value, context in
            log?.add(name ?? "\(context.node) \(kind.rawValue) \(value)")
            return result(value, context)
        })
}

/// A world whose diagnostics are collected.
final class Harness {
    let world = World()
    var diagnostics: [String] = []

    init(level: SafetyLevel = .relaxed) {
        world.defaultSafetyLevel = level
        world.diagnostics = { [unowned self] line in self.diagnostics.append(line) }
    }
}

let here = SourceLocation(file: "test.lua", line: 7)
