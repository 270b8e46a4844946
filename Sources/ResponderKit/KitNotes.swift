import ResponderEngine
import ResponderLua

/// What the kit knows about a node that pictures show beside its responders.
public enum KitNotes {
    /// A function giving a node's kit notes in `runtime`: `disabled` when the node or an ancestor
    /// is disabled, `loading` for an AsyncButton whose task runs, a control's dispatch table
    /// (`touchUpInside → action(save)`, `touchUpInside → addTarget(nil, undo:)`) and the
    /// `canPerform` actions a node declares for nil-targeted actions, then the environment values
    /// and preferences it sets (`env theme = "dark"`, `preference Total = 3`).
    public static func provider(_ runtime: LuaRuntime) -> (Node) -> [String] {
        guard let m = runtime.moduleState else { return { _ in [] } }
        return { node in
            var notes: [String] = []
            if (try? m.isDisabled(node)) == true { notes.append("disabled") }
            if (try? m.loadingState(node).loading) == true { notes.append("loading") }
            if let k = m.kit.kit(node) {
                for h in k.handlers { notes.append("\(h.event.rawValue) → \(m.traceLabel(h))") }
                for p in k.performers { notes.append("canPerform(\(p.selector))") }
            }
            notes += EnvironmentNotes.lines(m, node)
            return notes
        }
    }
}
