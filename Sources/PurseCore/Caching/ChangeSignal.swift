/// A change a server acts on rather than caches: the change feed tells it (after the changing
/// transaction commits, whichever server made the change), and whoever iterates ``changes`` wakes
/// once for however many arrived meanwhile.
public final class ChangeSignal: Sendable {
    /// The notification payload that raises this signal.
    public let topic: String
    /// One element per wake-up; a single consumer.
    public let changes: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    public init(topic: String) {
        self.topic = topic
        (changes, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Raises the signal (the change feed, or a timer standing in for a missed notification).
    public func raise() {
        continuation.yield()
    }
}

extension ChangeSignal: ChangeSubscriber {
    func changed() { raise() }

    /// A signal has nothing to serve from memory: a missed notification only delays the work,
    /// which its consumer also does on a timer.
    func setServing(_ serving: Bool) {}
}
