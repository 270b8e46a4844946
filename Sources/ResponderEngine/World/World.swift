/// The application: the mounted tree, the safety policy, warnings, the alert and the last trace.
///
/// All world calls are synchronous and single-threaded. The public actions (`trigger`,
/// `report`, `publish`, `tap`, `mount`, and `Node.add` into a mounted tree) are *actions*:
/// a strict violation inside an action sets ``pendingAbort`` and throws ``StrictViolation``;
/// while it is pending every world action throws it again and the dispatcher re-checks it after
/// every responder body, so a responder cannot swallow it. It is cleared when the outermost
/// action returns. The bridge can wrap its own actions with ``performAction(_:)``.
public final class World {
    /// The deepest allowed nesting of dispatches.
    public static let maximumDispatchDepth = 100

    /// The mounted root, if any.
    public internal(set) var root: Node?
    /// Relaxed-mode violations, oldest first.
    public internal(set) var warnings: [Violation] = []
    /// The trace of the last top-level action.
    @exclusivity(unchecked) public internal(set) var lastTrace: Trace?
    /// The alert presented by a `handleAlertErrors` entry, if any.
    public internal(set) var alert: Alert?
    /// The safety level at the root (nodes can override it for their subtree).
    public var defaultSafetyLevel: SafetyLevel = .relaxed
    /// The strict violation that is unwinding the current action, if any.
    @exclusivity(unchecked) public internal(set) var pendingAbort: Violation?
    /// How many strict violations of each kind were raised so far (never reset: a test
    /// framework compares counts before and after a call, as `assert.warns` does under strict).
    public internal(set) var strictViolationCounts: [ViolationKind: Int] = [:]
    /// The last strict violation raised (never reset), for a host that must say what a call it
    /// made on its own (not the script's) raised: see ``strictViolation(since:)``.
    public internal(set) var lastStrictViolation: Violation?
    /// How many strict violations were raised so far, of every kind.
    public var strictViolationTotal: Int { strictViolationCounts.values.reduce(0, +) }

    /// The last strict violation, when one was raised since ``strictViolationTotal`` was `total`.
    public func strictViolation(since total: Int) -> Violation? {
        strictViolationTotal > total ? lastStrictViolation : nil
    }
    /// How many dispatches (and publications) are running, nested.
    @exclusivity(unchecked) public internal(set) var dispatchDepth = 0
    /// How many actions are running, nested.
    @exclusivity(unchecked) public internal(set) var actionDepth = 0
    /// How many appear walks are running, nested (an appear handler adding nodes).
    var appearWalks = 0
    /// The steps of the control actions a running composite input recorded, and how many
    /// actions recorded them (see ``performInput(_:at:_:)``).
    var inputSteps: (steps: [TraceStep], actions: Int)?
    /// Nodes that appeared in a nested appear walk while an outer walk runs: the outer walk
    /// skips them, so a node appears once per addition.
    var appearedInNestedWalks: Set<ObjectIdentifier> = []
    /// Whether the appear or disappear hooks running now are those of a subtree that
    /// ``Node/add(_:at:)`` moves from one place of the mounted tree to another (it disappears and
    /// appears again in the same call) rather than one removed or added: hooks keep what a move
    /// does not change (the kit's preference handlers fire again only when the value changed).
    /// Each walk sets it for its own hooks; a walk a hook starts sets its own and restores this.
    public internal(set) var isMoving = false

    /// Receives each relaxed-mode diagnostic line (`warning: FILE:LINE: message`).
    /// The default discards it; the bridge prints it to stderr.
    public var diagnostics: (String) -> Void = { _ in }
    /// Builds the error the engine raises at a responder's position when a body returns the
    /// wrong kind of result. The default makes a ``ValueType/runtimeError`` with `message` and
    /// `node` fields; the bridge makes `LuaError` values.
    public var makeRuntimeError: (String, Node) -> Value = { message, node in
        Value(
            type: .runtimeError,
            payload: FieldsPayload(strings: ["message": message, "node": node.description]))
    }
    /// Supplies the location of an unhandled-value violation when the action was given none.
    /// It is asked when the dispatch ends, so a host that computes locations from its call stack
    /// (the Lua bridge) pays for them only when a violation needs one.
    public var locationProvider: (() -> SourceLocation?)?
    /// Called for every node of a subtree that becomes mounted, in document order, before the
    /// declaration checks run.
    public var appearHook: ((Node) throws -> Void)?
    /// Called for every node of a subtree that stops being mounted, in document order.
    public var disappearHook: ((Node) -> Void)?
    /// Called with the parent whose children changed in the mounted tree (after appear hooks).
    public var structureDidChange: ((Node) -> Void)?
    /// Called at the end of ``reset()``, for state the bridge owns (clock, tasks, …).
    public var resetHook: (() -> Void)?
    /// Called at the start of ``reset()``, while the mounted tree is still there (coverage
    /// collects what the tree offered).
    public var willReset: (() -> Void)?
    /// Called with every node that simulated input drives: ``tap(_:count:location:)`` and the
    /// bridge's controls (through ``noteDriven(_:)``). Used by coverage; `nil` costs nothing.
    /// The second argument is the drive's serial: the same for every node a single input or
    /// action drives (a `tap` that sends touchUpInside drives its button once).
    public var driveObserver: ((Node, Int) -> Void)?
    /// Counts drives: each outermost action, simulated input, or drive outside both.
    @exclusivity(unchecked) var driveSerial = 0
    /// How many times ``reset()`` ran (state kept per world "generation" compares it).
    public private(set) var generation = 0
    /// Called once when the outermost running action ends, then cleared (set it again for the
    /// next one). The bridge releases what it kept alive for the action's duration.
    public var afterActions: (() -> Void)?

    /// The meter charged for what the world keeps (traces, warnings); the host also passes it
    /// to the nodes and types it makes for the script (see ``MemoryMeter``).
    public let meter: MemoryMeter
    /// The memory charged for ``warnings``.
    var warningsMemory: MemoryAccount
    /// The meter charged for the work the world does (nodes walked when mounting, dispatch paths,
    /// subscribers collected); the host also passes it to searches (see ``WorkMeter``).
    public let work: WorkMeter

    /// Creates an empty world.
    /// - Parameters:
    ///   - meter: The memory meter to charge; by default one that only counts.
    ///   - work: The work meter to charge; by default one that only counts.
    public init(meter: MemoryMeter = MemoryMeter(), work: WorkMeter = WorkMeter()) {
        self.meter = meter
        self.work = work
        self.warningsMemory = MemoryAccount(meter)
    }

    /// Forgets the mounted tree (without disappear hooks), warnings, alert, last trace and any
    /// pending abort, then calls ``resetHook``.
    public func reset() {
        willReset?()
        generation += 1
        var tally = WorkTally(work)
        root?.forEachInSubtree { node in
            node.world = nil
            _ = tally.step()
        }
        tally.finish()
        root = nil
        clearWarnings()
        alert = nil
        lastTrace = nil
        pendingAbort = nil
        resetHook?()
    }

    /// Tells ``driveObserver`` that simulated input drove `node`.
    @inline(__always)
    public func noteDriven(_ node: Node) {
        guard let observer = driveObserver else { return }
        if actionDepth == 0 && inputSteps == nil { driveSerial &+= 1 }  // a drive of its own
        observer(node, driveSerial)
    }

    /// Empties ``warnings``.
    public func clearWarnings() {
        warnings = []
        warningsMemory.release(warningsMemory.bytes)
    }

    /// Dismisses the current alert.
    public func dismissAlert() { alert = nil }

    /// Runs `body` as an action: throws the pending strict violation first, and clears it when
    /// the outermost action ends.
    public func performAction<T>(_ body: () throws -> T) throws -> T {
        try beginAction()
        defer { endAction() }
        let result = try body()
        try checkPendingAbort()
        return result
    }

    /// Throws ``StrictViolation`` when one is pending. Call after running script callbacks.
    public func checkPendingAbort() throws {
        if pendingAbort != nil { throw StrictViolation(pendingAbort!) }  // (no copy when there is none)
    }

    /// Begins an action; throws ``EngineError/nestedTooDeeply`` when ``maximumDispatchDepth``
    /// actions already run nested (a tap, a control's sent actions or a simulated input counts as
    /// a dispatch of its own: a Button whose action taps it stops at 100, as nested triggers do).
    func beginAction() throws {
        try checkPendingAbort()
        guard actionDepth < Self.maximumDispatchDepth else { throw EngineError.nestedTooDeeply }
        if actionDepth == 0 && inputSteps == nil { driveSerial &+= 1 }
        actionDepth += 1
    }

    func endAction() {
        actionDepth -= 1
        if actionDepth == 0 {
            if pendingAbort != nil { pendingAbort = nil }  // (no destroy of a nil optional per action)
            if let hook = afterActions {
                afterActions = nil
                hook()
            }
        }
    }

    /// Runs one dispatch or publication (`body`, told whether it is the top level): the action
    /// and nesting bookkeeping both share. Throws ``EngineError/nestedTooDeeply`` past
    /// ``maximumDispatchDepth``.
    @inline(__always)
    func nestedDispatch<T>(_ body: (_ isTopLevel: Bool) throws -> T) throws -> T {
        try beginAction()
        defer { endAction() }
        guard dispatchDepth < Self.maximumDispatchDepth else { throw EngineError.nestedTooDeeply }
        dispatchDepth += 1
        defer { dispatchDepth -= 1 }
        return try body(dispatchDepth == 1)
    }

    /// Whether violations at `node` are dropped (`disabled` safety): callers skip building them.
    public func violationsDisabled(at node: Node) -> Bool {
        node.effectiveSafetyLevel(default: defaultSafetyLevel) == .disabled
    }

    /// Applies the safety policy to a violation.
    ///
    /// `relaxed` appends it to ``warnings`` and sends ``Violation/warningLine`` to
    /// ``diagnostics``; `strict` makes it the pending abort and throws; `disabled` does nothing.
    /// - Parameters:
    ///   - violation: The violation.
    ///   - level: The level in effect; `nil` means the level at `violation.node`.
    /// - Throws: ``StrictViolation`` under strict safety.
    public func reportViolation(_ violation: Violation, level: SafetyLevel? = nil) throws {
        switch level ?? violation.node.effectiveSafetyLevel(default: defaultSafetyLevel) {
        case .disabled:
            return
        case .relaxed:
            warnings.append(violation)
            warningsMemory.charge(violation.cost)
            diagnostics(violation.warningLine)
        case .strict:
            if pendingAbort == nil {
                pendingAbort = violation
                strictViolationCounts[violation.kind, default: 0] += 1
                lastStrictViolation = violation
            }
            throw StrictViolation(pendingAbort ?? violation)
        }
    }

    func presentAlert(for error: Value, at node: Node) {
        let title = error.payload?.stringField("title") ?? "Error"
        let message = error.payload?.stringField("message") ?? ""
        alert = Alert(title: title, message: message, node: node, error: error)
    }
}
