/// The host as its runtime's extensions see it: weak, since the host owns the runtime.
final class WeakHost {
    weak var value: ExploreHost?
    init(_ value: ExploreHost) { self.value = value }
}
