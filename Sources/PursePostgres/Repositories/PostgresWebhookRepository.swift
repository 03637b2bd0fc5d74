import Postgres
import PurseCore
import PurseModels

/// ``WebhookRepository`` on the `webhook_endpoints`, `webhook_deliveries` and `webhook_attempts`
/// tables (and reading `events`).
struct PostgresWebhookRepository: WebhookRepository {
    let connection: PostgresConnection

    private static let columns = "id, created, url, enabled_events, description, metadata, api_version, status"
    private static let endpoints = KeysetList(table: "webhook_endpoints", columns: columns, noun: "webhook endpoint")
    private static let attempts = KeysetList(
        table: "webhook_attempts", columns: "id, created, endpoint_id, event_id, status_code, duration_ms, error, next_retry_at",
        noun: "delivery attempt"
    )
    func insertEndpoint(_ endpoint: WebhookEndpoint, account: String) async throws {
        try await connection.query(
            """
            INSERT INTO webhook_endpoints (id, account_id, created, url, enabled_events, description, metadata, api_version, status)
            VALUES (\(endpoint.id), \(account), \(endpoint.created), \(endpoint.url),
                    \(PostgresTextArray(endpoint.enabledEvents)), \(endpoint.description), \(StoredJSON.encode(endpoint.metadata)),
                    \(endpoint.apiVersion), \(endpoint.status))
            """
        )
    }

    func findEndpoint(_ id: String, account: String, lock: Bool) async throws -> WebhookEndpoint? {
        var query: PostgresQuery = "SELECT \(unsafeSQL: Self.columns) FROM webhook_endpoints WHERE id = \(id) AND account_id = \(account)"
        if lock { query.append(" FOR NO KEY UPDATE") }
        return try await connection.query(query).first.map(Self.endpoint)
    }

    func updateEndpoint(_ endpoint: WebhookEndpoint, account: String) async throws {
        try await connection.query(
            """
            UPDATE webhook_endpoints
            SET url = \(endpoint.url), enabled_events = \(PostgresTextArray(endpoint.enabledEvents)),
                description = \(endpoint.description), metadata = \(StoredJSON.encode(endpoint.metadata)),
                status = \(endpoint.status)
            WHERE id = \(endpoint.id) AND account_id = \(account)
            """
        )
    }

    func dropPendingDeliveries(endpoint: String) async throws {
        try await connection.query("UPDATE webhook_deliveries SET state = 'failed' WHERE endpoint_id = \(endpoint) AND state = 'pending'")
    }

    func deleteEndpoint(_ id: String, account: String) async throws -> Bool {
        !(try await connection.query("DELETE FROM webhook_endpoints WHERE id = \(id) AND account_id = \(account) RETURNING id").isEmpty)
    }

    func listEndpoints(account: String, pagination: Pagination) async throws -> Page<WebhookEndpoint> {
        try await Self.endpoints.page(on: connection, where: "account_id = \(account)", pagination: pagination, decode: Self.endpoint)
    }

    func listAttempts(endpoint: String, account: String, pagination: Pagination) async throws -> Page<WebhookDeliveryAttempt> {
        try await Self.attempts.page(on: connection, where: "account_id = \(account) AND endpoint_id = \(endpoint)", pagination: pagination) {
            row in
            WebhookDeliveryAttempt(
                id: try row["id"], created: try row["created"], durationMs: Int(try row["duration_ms", as: Int32.self]),
                endpoint: try row["endpoint_id"], error: try row["error"], event: try row["event_id"],
                nextRetryAt: try row["next_retry_at"], statusCode: try row["status_code", as: Int32?.self].map(Int.init)
            )
        }
    }

    func claimDue(limit: Int, leaseSeconds: Int) async throws -> [ClaimedDelivery] {
        let claimed = try await connection.query(
            """
            UPDATE webhook_deliveries d SET claimed_until = now() + \(leaseSeconds) * interval '1 second'
            FROM webhook_endpoints w
            WHERE d.seq IN (
                SELECT d2.seq FROM webhook_deliveries d2
                JOIN webhook_endpoints w2 ON w2.id = d2.endpoint_id AND w2.status = 'enabled'
                WHERE d2.state = 'pending' AND d2.next_attempt_at <= now()
                  AND (d2.claimed_until IS NULL OR d2.claimed_until < now())
                ORDER BY d2.next_attempt_at
                LIMIT \(limit)
                FOR UPDATE OF d2 SKIP LOCKED
            ) AND w.id = d.endpoint_id
            RETURNING d.seq, d.account_id, d.endpoint_id, d.event_id, d.attempts, w.url
            """
        )
        return try claimed.map { row in
            ClaimedDelivery(
                delivery: try row["seq"], accountID: try row["account_id"], endpointID: try row["endpoint_id"],
                eventID: try row["event_id"], url: try row["url"], previousAttempts: Int(try row["attempts", as: Int32.self])
            )
        }
    }

    func giveUp(delivery: Int) async throws {
        try await connection.query("UPDATE webhook_deliveries SET state = 'failed', claimed_until = NULL WHERE seq = \(delivery)")
    }

    func recordAttempt(
        _ attempt: WebhookDeliveryAttempt, account: String, delivery: Int, state: DeliveryState, attempts: Int, nextAttemptAt: Int
    ) async throws {
        // The attempt first: its foreign key locks the endpoint (key share) before the
        // delivery's row is locked, the order an endpoint's update or delete takes them in.
        // The other order deadlocked with an endpoint being disabled.
        try await connection.query(
            """
            INSERT INTO webhook_attempts (id, account_id, endpoint_id, event_id, created, status_code, duration_ms, error, next_retry_at)
            VALUES (\(attempt.id), \(account), \(attempt.endpoint), \(attempt.event), \(attempt.created),
                    \(attempt.statusCode.map(Int32.init)), \(Int32(attempt.durationMs)), \(attempt.error), \(attempt.nextRetryAt))
            ON CONFLICT (id) DO NOTHING
            """
        )
        try await connection.query(
            """
            UPDATE webhook_deliveries
            SET state = \(state.rawValue), attempts = \(Int32(attempts)), claimed_until = NULL,
                next_attempt_at = to_timestamp(\(nextAttemptAt))
            WHERE seq = \(delivery) AND state = 'pending' AND attempts = \(Int32(attempts - 1))
            """
        )
    }

    /// Each count is served by a partial index, so it costs in proportion to the backlog, not to
    /// the deliveries ever made.
    func backlog() async throws -> WebhookBacklog {
        let rows = try await connection.query(
            """
            SELECT
                (SELECT count(*) FROM webhook_deliveries WHERE state = 'pending') AS pending,
                due.count AS due,
                COALESCE(extract(epoch FROM now() - due.oldest), 0)::float8 AS oldest_due_age,
                (SELECT count(*) FROM webhook_deliveries WHERE state = 'failed') AS failed
            FROM (
                SELECT count(*) AS count, min(next_attempt_at) AS oldest FROM webhook_deliveries
                WHERE state = 'pending' AND next_attempt_at <= now()
            ) due
            """
        )
        let row = rows[0]
        return WebhookBacklog(
            pending: try row["pending"], due: try row["due"], oldestDueAge: try row["oldest_due_age"], failed: try row["failed"]
        )
    }

    private static func endpoint(_ row: PostgresRow) throws -> WebhookEndpoint {
        WebhookEndpoint(
            id: try row["id"], apiVersion: try row["api_version"], created: try row["created"],
            description: try row["description"],
            enabledEvents: try row["enabled_events", as: PostgresTextArray.self].elements,
            metadata: try StoredJSON.decode(Metadata.self, from: try row["metadata"]), secret: nil,
            status: try row["status"], url: try row["url"]
        )
    }
}
