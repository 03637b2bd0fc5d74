import Postgres
import PurseCore
import PursePostgres
import TestSupport
import Testing

@Suite("Delivery attempts record failure classes")
struct WebhookAttemptClassesMigrationTests {
    /// The network's text recorded before migration 16 becomes its class; afterwards the column
    /// holds nothing but a class.
    @Test func theRecordedTextBecomesItsClass() async throws {
        try await TestPostgres.withDatabase { pool in
            let all = try Schema.migrator().migrations
            try await Migrator(migrations: all.filter { $0.version < 16 }).migrate(pool)
            let recorded: [(String?, String?)] = [
                (nil, nil), ("timed out", "timeout"), ("connection refused", "connection_failed"),
                ("connection lost", "connection_failed"), ("host not found", "dns_failure"),
                ("network error -1202", "tls_failure"), ("network error -1004", "connection_failed"),
                ("invalid URL", "destination_not_allowed"),
            ]
            try await pool.withTransaction { connection in
                try await connection.query("INSERT INTO accounts (id, name, created) VALUES ('acct_m', 'Migration', 0)")
                try await connection.query(
                    """
                    INSERT INTO webhook_endpoints (id, account_id, created, url, enabled_events, status)
                    VALUES ('we_m', 'acct_m', 0, 'http://127.0.0.1:9/', '{*}', 'enabled')
                    """
                )
                try await connection.query(
                    """
                    INSERT INTO events (id, account_id, created, type, api_version, data)
                    VALUES ('evt_m', 'acct_m', 0, 'customer.created', '2025-01-01', '{}')
                    """
                )
                for (index, (text, _)) in recorded.enumerated() {
                    try await connection.query(
                        """
                        INSERT INTO webhook_attempts (id, account_id, endpoint_id, event_id, created, duration_ms, error)
                        VALUES (\("whdel_\(index)"), 'acct_m', 'we_m', 'evt_m', \(index), 1, \(text))
                        """
                    )
                }
            }

            try await Schema.migrator().migrate(pool)
            let rows = try await pool.query("SELECT error FROM webhook_attempts ORDER BY created")
            #expect(try rows.map { try $0["error", as: String?.self] } == recorded.map(\.1))
            await #expect(throws: PGError.self, "free text is refused") {
                try await pool.query(
                    """
                    INSERT INTO webhook_attempts (id, account_id, endpoint_id, event_id, created, duration_ms, error)
                    VALUES ('whdel_text', 'acct_m', 'we_m', 'evt_m', 99, 1, 'connection refused (10.0.0.5:22)')
                    """
                )
            }
            for failure in WebhookFailure.allCases {
                try await pool.query(
                    """
                    INSERT INTO webhook_attempts (id, account_id, endpoint_id, event_id, created, duration_ms, error)
                    VALUES (\("whdel_\(failure.rawValue)"), 'acct_m', 'we_m', 'evt_m', 100, 1, \(failure.rawValue))
                    """
                )
            }
        }
    }
}
