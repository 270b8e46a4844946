/// The alert presented by a `handleAlertErrors` entry (``World/alert``).
public struct Alert {
    /// The error's `title`, or `"Error"`.
    public var title: String
    /// The error's `message`.
    public var message: String
    /// The single button's title: `"Okay"`.
    public var button: String
    /// The node whose `handleAlertErrors` entry presented it.
    public var node: Node
    /// The alerted error.
    public var error: Value

    /// Creates an alert.
    public init(title: String, message: String, button: String = "Okay", node: Node, error: Value) {
        self.title = title
        self.message = message
        self.button = button
        self.node = node
        self.error = error
    }
}
