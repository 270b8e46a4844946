extension Node {
    /// Appends an entry to the responder list and returns it.
    ///
    /// An entry added while a dispatch is at this node waits for the next dispatch; one added
    /// to a node the dispatch has not reached yet runs.
    @discardableResult
    public func addResponder(_ entry: ResponderEntry) -> ResponderEntry {
        responders.append(entry)
        meter?.charge(entry.cost)
        return entry
    }

    /// Removes every entry with identifier `id`; a removed entry whose turn has not come in a
    /// running dispatch is skipped.
    /// - Returns: Whether anything was removed.
    @discardableResult
    public func removeResponder(id: String) -> Bool {
        var removed = false
        for entry in responders where entry.id == id {
            entry.isRemoved = true
            removed = true
            meter?.release(entry.cost)
        }
        if removed { responders.removeAll { $0.isRemoved } }
        // subscribers are listed by `node:responders()` too, and take an id the same way
        var removedSubscriber = false
        for subscriber in subscribers where subscriber.id == id {
            subscriber.isRemoved = true
            removedSubscriber = true
            release(subscriber.cost)  // (charged to the node's extras by `subscribe`)
        }
        if removedSubscriber { subscribers.removeAll { $0.isRemoved } }
        return removed || removedSubscriber
    }

    /// Removes one entry (by identity).
    /// - Returns: Whether it was in the list.
    @discardableResult
    public func removeResponder(_ entry: ResponderEntry) -> Bool {
        guard let index = responders.firstIndex(where: { $0 === entry }) else { return false }
        entry.isRemoved = true
        responders.remove(at: index)
        meter?.release(entry.cost)
        return true
    }

    /// Removes one subscriber (by identity); a publication that selected it does not call it.
    /// - Returns: Whether it was in the list.
    @discardableResult
    public func removeSubscriber(_ subscriber: Subscriber) -> Bool {
        guard let index = subscribers.firstIndex(where: { $0 === subscriber }) else { return false }
        subscriber.isRemoved = true
        subscribers.remove(at: index)
        release(subscriber.cost)  // (charged to the node's extras by `subscribe`)
        return true
    }

    /// Creates a publisher for events of `type` (and subtypes) on this node.
    /// - Parameters:
    ///   - type: The event type published.
    ///   - destination: Which subscriber levels a publication reaches.
    ///   - id: Optional identifier.
    /// - Returns: The publisher; publish with ``World/publish(_:through:location:)``.
    @discardableResult
    public func publisher(
        type: ValueType, destination: PublishingDestination = .lastLevel,
        id: String? = nil
    ) -> Publisher {
        let publisher = Publisher(type: type, destination: destination, id: id, node: self, meter: meter)
        publisher.sequence = nextPublishingSequence()
        ensureExtras().publishers.append(publisher)
        return publisher
    }

    /// Registers a subscriber for published events of `type` (subtypes match).
    /// - Parameters:
    ///   - type: The event type.
    ///   - id: Optional identifier.
    ///   - once: Whether it is removed just before its first call.
    ///   - location: The registering script line (for check 5 messages).
    ///   - body: Called with each published event that reaches it.
    /// - Returns: The subscriber.
    @discardableResult
    public func subscribe(
        type: ValueType, id: String? = nil, once: Bool = false, location: SourceLocation? = nil,
        body: @escaping SubscriberBody
    ) -> Subscriber {
        let subscriber = Subscriber(type: type, id: id, once: once, location: location, node: self, body: body)
        subscriber.sequence = nextPublishingSequence()
        ensureExtras().subscribers.append(subscriber)
        charge(subscriber.cost)
        return subscriber
    }

    /// One more than the largest sequence of this node's publishers and subscribers.
    private func nextPublishingSequence() -> Int {
        var last = 0
        for publisher in publishers { last = max(last, publisher.sequence) }
        for subscriber in subscribers { last = max(last, subscriber.sequence) }
        return last + 1
    }

    /// Adds a tap action, run by ``World/tap(_:count:location:)`` for a matching tap count.
    ///
    /// An `EventButton` is a node with a count-1 ``TapAction/Action/trigger(_:)`` or
    /// ``TapAction/Action/triggerProduced(_:)`` action.
    public func onTapGesture(
        count: Int = 1, action: TapAction.Action, id: String? = nil,
        isHidden: Bool = false
    ) {
        let tapAction = TapAction(count: count, action: action, id: id, isHidden: isHidden)
        ensureExtras().tapActions.append(tapAction)
        charge(tapAction.bytes)
    }

    /// Removes the tap actions with identifier `id`.
    public func removeTapAction(id: String) {
        guard let extras else { return }
        extras.tapActions.removeAll {
            guard $0.id == id else { return false }
            release($0.bytes)
            return true
        }
    }

    /// Removes every tap action.
    public func removeTapActions() {
        guard let extras else { return }
        release(extras.tapActions.reduce(0) { $0 + $1.bytes })
        extras.tapActions.removeAll()
    }
}
