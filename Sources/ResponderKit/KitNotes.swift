import ResponderEngine
import ResponderLua

/// What the kit knows about a node that pictures show beside its responders.
public enum KitNotes {
    /// A function giving a node's kit notes in `runtime`: `disabled` when the node or an ancestor
    /// is disabled, `loading` for an AsyncButton whose task runs.
    public static func provider(_ runtime: LuaRuntime) -> (Node) -> [String] {
        guard let m = runtime.moduleState else { return { _ in [] } }
        return { node in
            var notes: [String] = []
            if (try? m.isDisabled(node)) == true { notes.append("disabled") }
            if (try? m.loadingState(node).loading) == true { notes.append("loading") }
            return notes
        }
    }
}
