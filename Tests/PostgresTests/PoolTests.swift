import Foundation
import NIOConcurrencyHelpers
import TestSupport
import Testing

@testable import Postgres

@Suite("The connection pool")
struct PoolTests {
    @Test func callersWaitForAFreeConnectionThenTimeOutClearly() async throws {
        let options = PostgresClient.Options(maxConnections: 1, checkoutTimeout: .milliseconds(300))
        try await TestPostgres.withDatabase(options: options) { client in
            let (holder, holding) = Self.holdTheOneConnection(of: client)
            await holding.wait()
            let started = ContinuousClock.now
            let error = await #expect(throws: PGError.self) { try await client.query("SELECT 1") }
            let waited = ContinuousClock.now - started
            holder.cancel()
            await #expect(throws: CancellationError.self) { try await holder.value }
            #expect(error?.kind == .poolTimeout)
            #expect(error?.isUnavailable == true)
            // Not before the checkout timeout (a loaded machine fires the timer late, never early).
            #expect(waited >= .milliseconds(250))
            // Once the holder is done, the connection serves again.
            let rows = try await client.query("SELECT 1 AS one")
            #expect(try rows[0]["one", as: Int32.self] == 1)
            let statistics = client.statistics
            #expect(statistics.totalWaits >= 1)
            #expect(statistics.timeouts == 1)
            #expect(statistics.totalWaitTime >= .milliseconds(250))
        }
    }

    /// One timer serves all waiters (`failExpiredWaiters`): a later waiter must get its own full
    /// timeout, not the deadline of the one before it.
    @Test func eachWaiterTimesOutAfterItsOwnFullTimeout() async throws {
        let options = PostgresClient.Options(maxConnections: 1, checkoutTimeout: .milliseconds(400))
        try await TestPostgres.withDatabase(options: options) { client in
            let (holder, holding) = Self.holdTheOneConnection(of: client)
            await holding.wait()
            let waits = try await withThrowingTaskGroup(of: Duration.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        let started = ContinuousClock.now
                        await #expect(throws: PGError.self) { try await client.query("SELECT 1") }
                        return ContinuousClock.now - started
                    }
                    // The second waiter joins when the first is halfway to its deadline.
                    try await Task.sleep(for: .milliseconds(200))
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            holder.cancel()
            await #expect(throws: CancellationError.self) { try await holder.value }
            #expect(waits.count == 2)
            #expect(waits.allSatisfy { $0 >= .milliseconds(350) })
            #expect(client.statistics.timeouts == 2)
        }
    }

    /// A waiter that arrives while the timer is set for an earlier, since served, waiter's
    /// deadline keeps waiting past that deadline and is served. The connection is held by
    /// bodies that wait for a signal, so only the waits themselves are timed.
    @Test func aLaterWaiterOutlivesAnEarlierDeadline() async throws {
        let options = PostgresClient.Options(maxConnections: 1, checkoutTimeout: .seconds(4))
        try await TestPostgres.withDatabase(options: options) { client in
            // The served waiter waited from 0 s (deadline 4 s): the timer stays set for 4 s.
            let (holder, letGo, earlierWait) = try await Self.serveAWaiter(of: client)
            // Joins at 2 s (deadline 6 s); the connection comes free at 4.5 s.
            try await Task.sleep(until: earlierWait + .seconds(2))
            async let later = client.query("SELECT 3 AS three")
            try await Task.sleep(until: earlierWait + .milliseconds(4500))
            letGo.open()
            try await holder.value
            #expect(try await later[0]["three", as: Int32.self] == 3)
            #expect(client.statistics.timeouts == 0)
            #expect(client.statistics.totalWaits == 2)
        }
    }

    /// The same, when no connection comes free: the later waiter still times out at its own
    /// deadline, though the timer, set for the served waiter's, found no one's time up when it
    /// fired. (It once stopped there, and the later waiter waited until a connection came back:
    /// forever, if the holder waited for that waiter.) The holder lets go after 20 s at most, so
    /// that a regression fails rather than hangs.
    @Test func aLaterWaiterTimesOutAfterAnEarlierWaiterWasServed() async throws {
        let options = PostgresClient.Options(maxConnections: 1, checkoutTimeout: .seconds(1))
        try await TestPostgres.withDatabase(options: options) { client in
            // The served waiter waited from 0 s (deadline 1 s): the timer stays set for 1 s.
            let (holder, letGo, earlierWait) = try await Self.serveAWaiter(of: client)
            // Joins at 0.5 s (deadline 1.5 s); the timer fires at 1 s and finds no one's time up.
            try await Task.sleep(until: earlierWait + .milliseconds(500))
            let lettingGoAnyway = Task {
                try? await Task.sleep(for: .seconds(20))
                letGo.open()
            }
            let error = await #expect(throws: PGError.self) { try await client.query("SELECT 1") }
            #expect(error?.kind == .poolTimeout)
            lettingGoAnyway.cancel()
            letGo.open()
            try await holder.value
            #expect(client.statistics.timeouts == 1)
        }
    }

    /// Leaves a one-connection pool's connection with a caller that waited for it and was served
    /// (the pool's timer still set for that wait's deadline), holding it until the gate opens;
    /// returns that caller's task, its gate and when it began to wait.
    private static func serveAWaiter(of client: PostgresClient) async throws -> (Task<Void, any Error>, Gate, ContinuousClock.Instant) {
        let (firstHolding, first, second) = (Gate(), Gate(), Gate())
        let firstHolder = Task {
            try await client.withConnection { _ in
                firstHolding.open()
                await first.wait()
            }
        }
        await firstHolding.wait()
        let waitStarted = ContinuousClock.now
        let secondHolder = Task { try await client.withConnection { _ in await second.wait() } }
        try await waitUntil { client.statistics.waiting == 1 }
        first.open()
        try await firstHolder.value
        return (secondHolder, second, waitStarted)
    }

    /// A request whose client went away while it waited for a connection: it stops waiting at
    /// once, leaves the queue, and the caller behind it is served next.
    @Test func aCancelledWaiterLeavesTheQueue() async throws {
        let options = PostgresClient.Options(maxConnections: 1, checkoutTimeout: .seconds(30))
        try await TestPostgres.withDatabase(options: options) { client in
            let (holding, release) = (Gate(), Gate())
            async let holder: Void = client.withConnection { _ in
                holding.open()
                await release.wait()
            }
            await holding.wait()
            let cancelled = Task { try await client.query("SELECT 1") }
            try await Self.waitUntil { client.statistics.waiting == 1 }
            async let next = client.query("SELECT 2 AS two")
            try await Self.waitUntil { client.statistics.waiting == 2 }
            cancelled.cancel()
            await #expect(throws: CancellationError.self) { try await cancelled.value }
            #expect(client.statistics.waiting == 1)
            release.open()
            try await holder
            #expect(try await next[0]["two", as: Int32.self] == 2)
            #expect(client.statistics.waiting == 0)
            #expect(client.statistics.timeouts == 0)
        }
    }

    /// A task that takes a one-connection pool's connection and keeps it, in a statement that
    /// runs until the task is cancelled (or a minute has passed), and the gate it opens once it
    /// has it. Held by the server, not by a pause: under ThreadSanitizer's load a pause of over
    /// a second ended before a 300 ms checkout timer fired.
    private static func holdTheOneConnection(of client: PostgresClient) -> (Task<Void, any Error>, Gate) {
        let holding = Gate()
        let holder = Task {
            try await client.withConnection { connection in
                holding.open()
                try await connection.query("SELECT pg_sleep(60)")
            }
        }
        return (holder, holding)
    }

    /// Polls `condition` (a loaded machine may take a while to queue a caller) for up to 20 s.
    private static func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("The condition never held")
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    @Test func waitingCallersAreServedInOrder() async throws {
        let options = PostgresClient.Options(maxConnections: 1, checkoutTimeout: .seconds(10))
        try await TestPostgres.withDatabase(options: options) { client in
            let order = ServiceOrder()
            let (holding, release) = (Gate(), Gate())
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await client.withConnection { _ in
                        holding.open()
                        await release.wait()
                    }
                }
                await holding.wait()
                for caller in 1...5 {
                    group.addTask {
                        try await client.withConnection { _ in order.record(caller) }
                    }
                    // Each caller joins the queue before the next one.
                    try await Self.waitUntil { client.statistics.waiting == caller }
                }
                release.open()
                try await group.waitForAll()
            }
            #expect(order.callers == [1, 2, 3, 4, 5])
        }
    }

    @Test func manyConcurrentCallersShareASmallPool() async throws {
        try await TestPostgres.withDatabase(options: .init(maxConnections: 3, checkoutTimeout: .seconds(60))) { client in
            let total = try await withThrowingTaskGroup(of: Int.self) { group in
                for n in 1...60 {
                    group.addTask { try await client.query("SELECT \(n) AS n")[0]["n", as: Int.self] }
                }
                return try await group.reduce(0, +)
            }
            #expect(total == (1...60).reduce(0, +))
            #expect(client.statistics.open <= 3)
        }
    }

    /// A statement's first run (its Parse travels with it) and a prepared one's.
    @Test(arguments: [false, true])
    func cancellingTheTaskCancelsTheRunningQuery(preparedBefore: Bool) async throws {
        try await TestPostgres.withDatabase(options: .init(maxConnections: 1)) { client in
            let sleep: @Sendable (Int) -> PostgresQuery = { seconds in "SELECT pg_sleep(\(seconds))" }
            if preparedBefore {
                try await client.query(sleep(0))
            }
            let task = Task { try await client.query(sleep(30)) }
            try await Task.sleep(for: .milliseconds(300))
            task.cancel()
            await #expect(throws: CancellationError.self) { try await task.value }
            // The connection is clean and reused for the next caller.
            let rows = try await client.query("SELECT 2 AS two")
            #expect(try rows[0]["two", as: Int32.self] == 2)
            #expect(client.statistics.open == 1)
        }
    }

    /// A cancel request that reaches the server before the statement has started there is
    /// dropped by PostgreSQL; cancelling at once, many times over, hits that moment.
    @Test func aCancelThatRacesTheStatementsStartStillCancelsIt() async throws {
        try await TestPostgres.withDatabase(options: .init(maxConnections: 1)) { client in
            try await client.query("SELECT 1")
            for round in 0..<40 {
                let task = Task { try await client.query("SELECT pg_sleep(30)") }
                try await Task.sleep(for: .microseconds(250 * (round % 8)))
                task.cancel()
                await #expect(throws: CancellationError.self) { try await task.value }
            }
        }
    }

    @Test func aClosedPoolRefusesWork() async throws {
        let client = PostgresClient(configuration: try TestPostgres.serverConfiguration())
        try await client.query("SELECT 1")
        await client.close()
        let error = await #expect(throws: PGError.self) { try await client.query("SELECT 1") }
        #expect(error?.kind == .poolClosed)
        // Closing again is harmless: nothing left to close, no descriptor written to twice.
        await client.close()
    }

    @Test(.scaledTimeLimit(minutes: 2))
    func thePoolRecoversWhenPostgreSQLRestarts() async throws {
        let cluster = try await TestPostgres.startThrowawayCluster()
        defer { TestPostgres.destroy(cluster) }
        let client = PostgresClient(
            configuration: try cluster.configuration(),
            options: .init(maxConnections: 3, checkoutTimeout: .seconds(2))
        )
        // Open several connections so the pool holds idle ones the restart breaks.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<3 { group.addTask { try await client.query("SELECT pg_sleep(0.1)") } }
            try await group.waitForAll()
        }
        try await cluster.stopServer()
        let error = await #expect(throws: PGError.self) { try await client.query("SELECT 1") }
        #expect(error?.isUnavailable == true)
        try await cluster.startServer()
        for n in 0..<6 {
            let rows = try await client.query("SELECT \(n) AS n")
            #expect(try rows[0]["n", as: Int.self] == n)
        }
        await client.close()
    }
}

/// The order in which callers got a connection.
final class ServiceOrder: Sendable {
    private let served = NIOLockedValueBox<[Int]>([])

    func record(_ caller: Int) { served.withLockedValue { $0.append(caller) } }
    var callers: [Int] { served.withLockedValue { $0 } }
}
