/// Bounds how many tests hold a database at once. Swift Testing runs every test in parallel, and
/// each live server opens a pool, a delivery loop and admin connections: without a bound a full
/// run exceeds the shared PostgreSQL's connection limit.
actor DatabaseSlots {
    static let shared = DatabaseSlots(limit: 32)

    /// Set while a task holds a slot, so a test that makes a second database does not wait for
    /// a slot it would be holding itself.
    @TaskLocal static var holding = false

    private let limit: Int
    private var inUse = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) { self.limit = limit }

    /// Runs `body` once a slot is free (at once when this task already holds one).
    nonisolated func withSlot<Result>(_ body: () async throws -> Result) async throws -> Result {
        if Self.holding { return try await body() }
        await acquire()
        do {
            let result = try await Self.$holding.withValue(true) { try await body() }
            await release()
            return result
        } catch {
            await release()
            throw error
        }
    }

    private func acquire() async {
        if inUse < limit {
            inUse += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func release() {
        if waiting.isEmpty {
            inUse -= 1
        } else {
            // The slot passes straight to the next waiter.
            waiting.removeFirst().resume()
        }
    }
}
