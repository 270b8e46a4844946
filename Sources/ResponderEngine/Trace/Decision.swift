/// What an entry did with the value it saw, as recorded in a ``TraceStep``.
public enum Decision: String, Sendable, CaseIterable {
    /// The filter did not match; the body was not called.
    case skipped
    /// The body ran and passed the value on (or an alert handler let a non-alertable error pass).
    case passed
    /// The value was consumed.
    case handled
    /// A transform replaced the value.
    case transformed
    /// A `catchError` turned the error into an event.
    case caught
    /// The body raised an error (or returned something invalid, which became an error).
    case threw
    /// A `triggers`/`reports` declaration saw the value pass.
    case declared
    /// The value went past the root unhandled (the final step).
    case unhandled
    /// A value failed a `triggers`/`reports` declaration's check.
    case undeclared
    /// Input or an action reached a disabled control: nothing was performed (SPEC §2.10).
    case disabled
    /// A press reached an AsyncButton whose task still runs (and that stays enabled while
    /// loading): it started nothing.
    case loading
}
