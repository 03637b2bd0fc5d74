import TestSupport
import Testing

@testable import Postgres

/// ``PostgresClient/Options/statementTimeout``: no statement, and no commit, waits for ever.
@Suite("Statement time limits")
struct StatementTimeoutTests {
    @Test func aStatementPastTheLimitIsCancelledAsTheDatabaseBeingUnavailable() async throws {
        let options = PostgresClient.Options(maxConnections: 1, statementTimeout: .milliseconds(300))
        try await TestPostgres.withDatabase(options: options) { client in
            let error = await #expect(throws: PGError.self) { try await client.query("SELECT pg_sleep(10)") }
            #expect(error?.sqlState == .queryCanceled)
            #expect(error?.isUnavailable == true)
            // The connection serves the next caller.
            let one = try await client.query("SELECT 1 AS one")
            #expect(try one[0]["one", as: Int32.self] == 1)
        }
    }

    /// PostgreSQL does not time out a COMMIT waiting for a synchronous standby (the standby here
    /// never comes); the connection cancels it, PostgreSQL then reports success with a warning,
    /// and the caller learns that the outcome is unknown: committed here, not on the standby.
    @Test func aCommitWaitingForAnAbsentStandbyHasAnUnknownOutcome() async throws {
        let cluster = try await TestPostgres.startThrowawayCluster(
            serverSettings: ["synchronous_standby_names": "absent_standby", "synchronous_commit": "on"]
        )
        defer { TestPostgres.destroy(cluster) }
        let client = PostgresClient(
            configuration: try cluster.configuration(), options: .init(maxConnections: 1, statementTimeout: .milliseconds(500))
        )
        try await client.withTransaction { connection in
            try await connection.query("SET LOCAL synchronous_commit = local")
            try await connection.query("CREATE TABLE items (n int)")
        }
        let error = await #expect(throws: PGError.self) {
            try await client.withTransaction { connection in
                try await connection.query("INSERT INTO items VALUES (\(1))")
            }
        }
        #expect(error?.kind == .commitOutcomeUnknown)
        #expect(error?.isUnavailable == true)
        // Committed locally all the same: only reading tells.
        let rows = try await client.query("SELECT count(*) AS n FROM items")
        #expect(try rows[0]["n", as: Int.self] == 1)
        await client.close()
    }
}
