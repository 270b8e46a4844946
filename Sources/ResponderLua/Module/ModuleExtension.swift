import CLuaShim
import ResponderEngine

/// The one hook through which a library extends the `responder` module: the pattern kit
/// (`ResponderKit`) plugs in here, so the module never names the kit.
///
/// Everything an extension adds is created on first use, as the module's own names are
/// (`ResponderModule.lazyName`), so an extension costs nothing at state creation and nothing on
/// the dispatch path. A state has at most one extension, given to
/// `ResponderModule.install(into:options:extension:)`.
package protocol ModuleExtension: Sendable {
    /// Swift functions added to the module table (and the globals): name and function.
    var functions: [(String, LuaSwiftFunction)] { get }
    /// Swift methods added to every node: name and function.
    var methods: [(String, LuaSwiftFunction)] { get }
    /// Module functions (also globals) that `pushLuaFunction` provides.
    var luaFunctionNames: [String] { get }
    /// Node methods that `pushLuaFunction` provides.
    var luaMethodNames: [String] { get }

    /// Called once, when the module is installed into a state.
    func install(_ m: ModuleState)

    /// Pushes the function `name` (kind "f" for a module function, "m" for a node method) and
    /// returns true; on failure pushes a message and returns false.
    func pushLuaFunction(_ m: ModuleState, _ kind: String, _ name: String) -> Bool

    /// Pushes the node field `key` the extension defines (`node.on`, `control.value`, …) and
    /// returns true, or pushes nothing and returns false.
    func pushProperty(_ m: ModuleState, _ node: Node, _ key: String) -> Bool

    /// What to write instead when a script assigns the node field `key` (`button.isEnabled =
    /// false`): a hint for the error, or nil when the key is not the extension's.
    func assignmentHint(_ m: ModuleState, _ node: Node, _ key: String) -> String?

    /// Called before `tap` performs anything on `node`: returns true when the node refuses the
    /// input (disabled, or busy), after recording the refused action's trace; `tap` then
    /// performs nothing and returns `false`.
    func refusesInput(_ m: ModuleState, _ name: String, _ node: Node) throws -> Bool

    /// Called for a key of the table that configures a node the module makes (`EventButton "T" {
    /// disabled = true }`), before the key becomes a prop: returns nil when the extension does not
    /// take the key, 0 when it took it, or the status of the error it raised.
    func configureField(_ m: ModuleState, _ node: Node, _ key: String, at index: Int32) -> Int32?

    /// Pushes what a registration of the module returns (`onTapGesture`; SPEC §2.4 and §2.10):
    /// a handle that stands for `node` (it chains as the node does and equals it) and whose
    /// `cancel()` calls `remover` with the `upvalues` values on top of the stack as its upvalues
    /// 2… (they are popped). `kind` names the registration (`"onTapGesture"`).
    func pushRegistrationHandle(
        _ m: ModuleState, _ kind: String, _ node: Node, remover: LuaSwiftFunction, upvalues: Int32)
}

extension ModuleState {
    /// Pushes what a registration returns: the extension's handle for `node`
    /// (``ModuleExtension/pushRegistrationHandle(_:_:_:remover:upvalues:)``), or the node itself
    /// without an extension. Pops the `upvalues` values on top of the stack either way.
    package func pushRegistration(_ kind: String, _ node: Node, remover: LuaSwiftFunction, upvalues: Int32) {
        if let ext = moduleExtension {
            ext.pushRegistrationHandle(self, kind, node, remover: remover, upvalues: upvalues)
        } else {
            luashim_pop(L, upvalues)
            push(node)
        }
    }

    /// A fresh number that names one registration (the tap action an `onTapGesture` handle
    /// cancels).
    package func nextRegistrationNumber() -> Int {
        lastRegistrationNumber += 1
        return lastRegistrationNumber
    }
}
