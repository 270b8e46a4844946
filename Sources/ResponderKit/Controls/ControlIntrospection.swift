import ResponderEngine
import ResponderLua

/// What a control offers simulated input, as tools that drive the tree (`responder explore`)
/// need to know it; read from the kit's own state, never through Lua.
package struct ControlInfo: Sendable, Equatable {
    package enum Kind: String, Sendable {
        case button, textField, secureField, slider, stepper, toggle, segmentedControl
    }

    package var kind: Kind
    /// Slider and Stepper bounds (the kit's default is 0...1 for a Slider without a range).
    package var range: (Double, Double)?
    package var step: Double?
    /// Stepper directions that do something (a free-form Stepper's `false` disables one).
    package var canIncrement: Bool
    package var canDecrement: Bool
    /// SegmentedControl: how many segments.
    package var segments: Int

    package static func == (a: ControlInfo, b: ControlInfo) -> Bool {
        a.kind == b.kind && a.range?.0 == b.range?.0 && a.range?.1 == b.range?.1 && a.step == b.step
            && a.canIncrement == b.canIncrement && a.canDecrement == b.canDecrement && a.segments == b.segments
    }
}

/// Read-only questions about the kit's controls, for many nodes in a row (one walk of a tree):
/// the kit's registry is looked up once.
package struct ControlIntrospector {
    let m: ModuleState
    let registry: KitRegistry

    package init(_ m: ModuleState) {
        self.m = m
        self.registry = m.kit
    }

    /// The control `node` is, or nil.
    package func control(_ node: Node) -> ControlInfo? {
        guard node.host >= ControlKind.button.rawValue, let k = registry.kit(node) else { return nil }
        return ControlIntrospection.info(node, k)
    }

    /// Whether `node` has `touchUpInside` entries in its dispatch table (a target–action sender).
    package func sendsTouchUpInside(_ node: Node) -> Bool {
        registry.kit(node)?.handlers.contains { $0.event == .touchUpInside } ?? false
    }

    /// Whether simulated input on `node` performs nothing (see `ControlIntrospection.isDisabled`).
    /// Nodes with no `disabled` setting and no AsyncButton above them are answered without Lua.
    package func isDisabled(_ node: Node) -> Bool {
        var current: Node? = node
        while let n = current {
            if let k = registry.kit(n), k.disabled != nil || k.loading != nil {
                return ControlIntrospection.isDisabled(m, node)
            }
            current = n.parent
        }
        return false
    }
}

/// Read-only questions about the kit's controls.
package enum ControlIntrospection {
    /// The control `node` is, or nil.
    package static func control(_ m: ModuleState, _ node: Node) -> ControlInfo? {
        guard let k = m.kit.kit(node) else { return nil }
        return info(node, k)
    }

    static func info(_ node: Node, _ nodeKit: NodeKit) -> ControlInfo? {
        guard let kind = ControlKind.of(node), let c = nodeKit.control else { return nil }
        let k: ControlInfo.Kind
        switch kind {
        case .button, .asyncButton: k = .button
        case .textField: k = .textField
        case .secureField: k = .secureField
        case .slider: k = .slider
        case .stepper: k = .stepper
        case .toggle: k = .toggle
        case .segmentedControl: k = .segmentedControl
        }
        return ControlInfo(
            kind: k, range: c.range.map { ($0.0.double, $0.1.double) }, step: c.step?.double,
            canIncrement: c.binding != nil || c.canIncrement,
            canDecrement: c.binding != nil || c.canDecrement, segments: c.segments.count)
    }

    /// Whether `node` has `touchUpInside` entries in its dispatch table (a target–action sender).
    package static func sendsTouchUpInside(_ m: ModuleState, _ node: Node) -> Bool {
        m.kit.kit(node)?.handlers.contains { $0.event == .touchUpInside } ?? false
    }

    /// Whether simulated input on `node` performs nothing because it or an ancestor is disabled
    /// (SPEC §2.10, `node.isEnabled == false`; an AsyncButton while it loads, unless
    /// `disabledWhenLoading = false`). A `disabled` binding whose `get` raises counts as enabled
    /// (the kit reports that error from its node, as `isEnabled` does).
    package static func isDisabled(_ m: ModuleState, _ node: Node) -> Bool {
        (try? m.isDisabled(node)) ?? false
    }
}
