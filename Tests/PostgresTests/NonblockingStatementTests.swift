import Foundation
import TestSupport
import Testing

@testable import Postgres

/// Statements go out with `PQflush` and answers come in with `PQconsumeInput` as the socket
/// allows, without a thread waiting on either. Each test runs a statement once to prepare it, so
/// the next run is a bare Execute, then holds the nonblocking path to what callers rely on.
/// Cancellation is in PoolTests.
@Suite("Nonblocking statements")
struct NonblockingStatementTests {
    /// Runs `query` once, preparing it on the pool's one connection.
    private func prepare(_ query: PostgresQuery, on client: PostgresClient) async throws {
        try await client.query(query)
    }

    @Test func rowsAndErrorsComeBackAndTheConnectionIsReused() async throws {
        try await TestPostgres.withDatabase(options: .init(maxConnections: 1)) { client in
            try await prepare("SELECT 12 / \(1) AS v, pg_backend_pid() AS pid", on: client)
            let first = try await client.query("SELECT 12 / \(4) AS v, pg_backend_pid() AS pid")
            #expect(try first[0]["v", as: Int.self] == 3)
            let error = await #expect(throws: PGError.self) {
                try await client.query("SELECT 12 / \(0) AS v, pg_backend_pid() AS pid")
            }
            #expect(error?.kind == .server)
            #expect(error?.sqlState == SQLState("22012"))  // division_by_zero
            let after = try await client.query("SELECT 12 / \(6) AS v, pg_backend_pid() AS pid")
            #expect(try after[0]["v", as: Int.self] == 2)
            #expect(try after[0]["pid", as: Int32.self] == first[0]["pid", as: Int32.self])
            #expect(client.statistics.open == 1)
        }
    }

    /// An answer larger than the socket's buffers arrives over several wake-ups; a large value
    /// goes out in the one send.
    @Test func largeValuesGoAndComeBackWhole() async throws {
        try await TestPostgres.withDatabase(options: .init(maxConnections: 1)) { client in
            let query: @Sendable (String, Int) -> PostgresQuery = { text, times in
                "SELECT repeat(\(text), \(times)::int) AS v"
            }
            try await prepare(query("", 0), on: client)
            let text = String(repeating: "äbc", count: 300_000)  // 2.4 MB as UTF-8
            let rows = try await client.query(query(text, 3))
            let value = try rows[0]["v", as: String.self]
            #expect(value.utf8.count == text.utf8.count * 3)
            #expect(value == text + text + text)
        }
    }

    /// Many callers over a few connections: each gets its own answer, however the answers of
    /// different connections interleave on the waiting thread.
    @Test func concurrentCallersEachGetTheirOwnAnswer() async throws {
        try await TestPostgres.withDatabase(options: .init(maxConnections: 3, checkoutTimeout: .seconds(60))) { client in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for n in 0..<6 { group.addTask { try await client.query(Self.numbered(n)) } }
                try await group.waitForAll()
            }
            let mismatches = try await withThrowingTaskGroup(of: Bool.self) { group in
                for n in 1...300 {
                    group.addTask { try await client.query(Self.numbered(n))[0]["n", as: Int.self] != n }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(mismatches == 0)
            #expect(client.statistics.open <= 3)
        }
    }

    /// `n`, after a pause of 0–2 ms, so answers come back in a different order than asked.
    private static func numbered(_ n: Int) -> PostgresQuery {
        "SELECT \(n)::int8 AS n, pg_sleep(\(n % 3) / 1000.0)"
    }

    /// The server ends the connection while the caller waits: a connection failure, and the
    /// pool's next caller gets a new connection.
    @Test func aConnectionLostWhileWaitingFailsAndIsReplaced() async throws {
        try await TestPostgres.withDatabase(options: .init(maxConnections: 1)) { client in
            let terminate: (Bool) -> PostgresQuery = { yes in
                "SELECT CASE WHEN \(yes) THEN pg_terminate_backend(pg_backend_pid()) END AS ended"
            }
            try await prepare(terminate(false), on: client)
            let error = await #expect(throws: PGError.self) { try await client.query(terminate(true)) }
            #expect(error?.kind == .connectionFailed)
            #expect(error?.isUnavailable == true)
            // The server's own reason, not only libpq's "server closed the connection".
            #expect(error?.sqlState == .adminShutdown)
            let rows = try await client.query("SELECT 3 AS three")
            #expect(try rows[0]["three", as: Int32.self] == 3)
            #expect(client.statistics.open == 1)
        }
    }
}
