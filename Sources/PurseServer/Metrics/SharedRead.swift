import NIOConcurrencyHelpers

/// Runs `read` once for every caller that asks while it runs: callers arriving during a read
/// wait for it and share its result (or error); the next caller after it starts a fresh one.
///
/// `/metrics` needs no key, so a burst of scrapes must not turn into a burst of queries: the
/// webhook backlog is read over the two connections webhook delivery records its outcomes on,
/// and a record that waits out its checkout timeout is sent again.
final class SharedRead<Value: Sendable>: Sendable {
    private let read: @Sendable () async throws -> Value
    private let running = NIOLockedValueBox<Task<Value, any Error>?>(nil)

    init(_ read: @escaping @Sendable () async throws -> Value) {
        self.read = read
    }

    func value() async throws -> Value {
        let task = running.withLockedValue { running in
            if let task = running { return task }
            let read = self.read
            let task = Task { try await read() }
            running = task
            return task
        }
        defer {
            // The first caller to see it finish clears it; later callers start the next read.
            running.withLockedValue { running in
                if running == task { running = nil }
            }
        }
        return try await task.value
    }
}
