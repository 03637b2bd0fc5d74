import Foundation
import Postgres
import PurseCore
import PursePostgres
import TestSupport
import Testing

@Suite("Webhook deliveries and their endpoints lock in one order")
struct WebhookDeliveryLockOrderTests {
    /// An endpoint changing (locked first, then its deliveries) while an attempt is recorded:
    /// recording locks the endpoint before the delivery too, so the two wait in turn. In the
    /// other order they deadlocked and PostgreSQL failed one of them.
    @Test func recordingAnAttemptWaitsBehindAnEndpointChange() async throws {
        try await TestPostgres.withDatabase { pool in
            try await Schema.migrator().migrate(pool)
            try await pool.withTransaction { connection in
                try await connection.query("INSERT INTO accounts (id, name, created) VALUES ('acct_lock', 'Lock order', 0)")
                try await connection.query(
                    """
                    INSERT INTO webhook_endpoints (id, account_id, created, url, enabled_events, status)
                    VALUES ('we_lock', 'acct_lock', 0, 'http://127.0.0.1:9/', '{*}', 'enabled')
                    """
                )
                try await connection.query(
                    """
                    INSERT INTO events (id, account_id, created, type, api_version, data)
                    VALUES ('evt_lock', 'acct_lock', \(Int(Date().timeIntervalSince1970)), 'customer.created', '2025-01-01', '{}')
                    """
                )
                try await connection.query(
                    "INSERT INTO webhook_deliveries (account_id, endpoint_id, event_id) VALUES ('acct_lock', 'we_lock', 'evt_lock')")
            }
            let queue = WebhookDeliveryQueue(
                database: PostgresDatabase(pool: pool), masterKey: try MasterKey(bytes: Array(0..<32)), retrySchedule: [60], giveUpAfter: 3600,
                attemptTimeout: .seconds(5)
            )
            let attempt = try #require(try await queue.claim(limit: 1).first)

            // The endpoint's change: its row first, then, once the recording waits behind it, its
            // deliveries. Signals and PostgreSQL's own lock table order the steps, not sleeps.
            let endpointLocked = Gate()
            async let change: Void = pool.withTransaction { connection in
                try await connection.query("SELECT 1 FROM webhook_endpoints WHERE id = 'we_lock' FOR UPDATE")
                endpointLocked.open()
                try await Self.waitUntilAnotherSessionWaits(on: connection)
                try await connection.query("UPDATE webhook_deliveries SET state = 'failed' WHERE endpoint_id = 'we_lock' AND state = 'pending'")
            }
            await endpointLocked.wait()
            async let recording: Void = queue.record(attempt, outcome: .init(statusCode: nil, failure: .connectionFailed, durationMs: 1))
            try await change
            try await recording

            let states = try await pool.query("SELECT state FROM webhook_deliveries WHERE endpoint_id = 'we_lock'")
            #expect(try states.map { try $0["state", as: String.self] } == ["failed"], "the endpoint's change stands")
            let attempts = try await pool.query("SELECT count(*) AS count FROM webhook_attempts WHERE endpoint_id = 'we_lock'")
            #expect(try attempts[0]["count", as: Int.self] == 1, "the attempt is recorded")
        }
    }

    /// Returns once a session waits for a lock `connection` holds (the recording, blocked on
    /// the endpoint's row); fails the test if none does within 30 s.
    private nonisolated(nonsending) static func waitUntilAnotherSessionWaits(on connection: PostgresConnection) async throws {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            // Inside a transaction the activity view is a snapshot taken at its first read.
            try await connection.query("SELECT pg_stat_clear_snapshot()")
            let rows = try await connection.query(
                "SELECT count(*) AS waiting FROM pg_stat_activity WHERE pg_backend_pid() = ANY (pg_blocking_pids(pid))"
            )
            if try rows[0]["waiting", as: Int.self] > 0 { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw RecordingNeverWaited()
    }

    /// The attempt's recording never waited for the endpoint's lock: the test did not test the order.
    struct RecordingNeverWaited: Error {}
}
