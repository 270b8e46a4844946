/// Which subscribers a publication reaches, by subscriber level.
///
/// A subscriber's level is its nesting among the matching subscribers below the publisher:
/// subscribers with no matching subscriber on an ancestor node (up to the publisher) are level 1.
public enum PublishingDestination: String, Sendable, CaseIterable {
    /// Every subscriber at the deepest level present (the default).
    case lastLevel
    /// The outermost subscribers (level 1).
    case firstLevel
    /// Every subscriber.
    case allLevels
}
