/// A compact trace step: indices into its trace's path, snapshots and values.
struct StepRecord {
    /// Index into the trace's path.
    var node: Int32
    /// 0-based entry position in the node's snapshot, or -1 for the final `unhandled` step.
    var entry: Int32
    /// Index of the value the entry saw (0 = the initial value).
    var value: Int32
    /// Index of the result value, or -1.
    var result: Int32
    /// What happened.
    var decision: Decision
}
