/// Counters of what dispatches did at one responder entry, for coverage reports.
///
/// An entry counts only when it was given a stats object (``ResponderEntry/stats``); the
/// dispatch loop then adds to it at every visit. The engine never resets or reads them.
public final class ResponderStats {
    /// Visits with a value of the entry's kind whose type the filter did not match.
    public var skipped = 0
    /// Visits where the filter matched (the body ran, or the declaration checked the value).
    public var reached = 0
    /// The entry consumed the value.
    public var handled = 0
    /// The entry let the value go on unchanged.
    public var passed = 0
    /// The body raised (or returned something invalid, which became an error).
    public var threw = 0
    /// A transform replaced the value, or a `catchError` turned it into an event.
    public var transformed = 0
    /// For a declaration: the types of the values that passed it, with how many, in first-seen order.
    public var seenTypes: [(type: ValueType, count: Int)] = []

    /// Creates zeroed counters.
    public init() {}

    /// Sets every counter back to zero.
    public func clear() {
        skipped = 0
        reached = 0
        handled = 0
        passed = 0
        threw = 0
        transformed = 0
        seenTypes = []
    }

    /// Records a value of `type` passing a declaration.
    func noteDeclared(_ type: ValueType) {
        reached += 1
        passed += 1
        if let i = seenTypes.firstIndex(where: { $0.type === type }) {
            seenTypes[i].count += 1
        } else {
            seenTypes.append((type, 1))
        }
    }

    /// Counts a recorded decision.
    @inline(__always)
    func note(_ decision: Decision) {
        switch decision {
        case .skipped: skipped += 1
        case .passed:
            reached += 1
            passed += 1
        case .handled:
            reached += 1
            handled += 1
        case .threw:
            reached += 1
            threw += 1
        case .transformed, .caught:
            reached += 1
            transformed += 1
        case .declared, .undeclared, .unhandled, .disabled, .loading: break
        }
    }
}
