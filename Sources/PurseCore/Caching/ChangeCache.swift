import NIOConcurrencyHelpers

/// An in-memory copy of rows that rarely change (credentials, customer sessions, sheet
/// settings), emptied when PostgreSQL reports a change to them, so a revocation takes effect on
/// every server as its notification arrives.
///
/// PostgreSQL triggers `NOTIFY purse_changes, '<topic>'` in the changing transaction (migrations
/// 0012 and 0014); each server's ``ChangeFeed`` listens and calls ``invalidate()``, and stops the cache
/// serving (``setServing(_:)``) while it is not listening, since it could miss a change then.
/// A value read from the database is stored only if no change arrived since the read began
/// (``ticket()``), so a read that raced a revocation cannot put the revoked value back.
public final class ChangeCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// The notification payload that empties this cache.
    public let topic: String
    private let capacity: Int
    private let state = NIOLockedValueBox(State())

    private struct State {
        var entries: [Key: Value] = [:]
        var generation: UInt64 = 0
        var serving = false
    }

    /// A cache emptied by `topic`, holding at most `capacity` values (emptied when full, which is
    /// cheaper than tracking use and rare when the capacity fits the working set).
    public init(topic: String, capacity: Int = 50_000) {
        self.topic = topic
        self.capacity = capacity
    }

    /// The cached value, or nil (always nil while not serving).
    public func value(for key: Key) -> Value? {
        state.withLockedValue { $0.serving ? $0.entries[key] : nil }
    }

    /// Take before reading the database; pass to ``store(_:for:ticket:)``. Nil while not serving.
    public func ticket() -> UInt64? {
        state.withLockedValue { $0.serving ? $0.generation : nil }
    }

    /// Keeps `value` unless the cache changed since `ticket` was taken.
    public func store(_ value: Value, for key: Key, ticket: UInt64?) {
        guard let ticket else { return }
        state.withLockedValue { state in
            guard state.serving, state.generation == ticket else { return }
            if state.entries.count >= capacity { state.entries.removeAll(keepingCapacity: true) }
            state.entries[key] = value
        }
    }

    /// Empties the cache: what it held may have changed.
    public func invalidate() {
        state.withLockedValue { state in
            state.generation &+= 1
            state.entries.removeAll()
        }
    }

    /// Whether values are served (the change feed is listening).
    public var isServing: Bool {
        state.withLockedValue { $0.serving }
    }

    /// Starts or stops serving; either way the cache starts over empty.
    public func setServing(_ serving: Bool) {
        state.withLockedValue { state in
            state.generation &+= 1
            state.entries.removeAll()
            state.serving = serving
        }
    }
}
