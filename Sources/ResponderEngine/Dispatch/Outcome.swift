/// The result of a dispatch (`trigger`, `report`, an event-triggering `tap`).
///
/// The outcome follows the value across conversions: an event that became an error which
/// was then handled reports `handled == true` and that error as ``value``.
public struct Outcome {
    /// Whether some entry consumed the value.
    public var handled: Bool
    /// The node whose entry consumed it.
    public var by: Node?
    /// The consuming entry's kind name, e.g. `"handleEvent"`.
    public var responder: String?
    /// The final value, after transforms and conversions.
    public var value: Value
    /// The dispatch's trace.
    public var trace: Trace
}
