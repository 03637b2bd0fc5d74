import Postgres
import PurseCore
import PurseModels

/// ``EventRepository`` on the `events` table, with the `webhook_deliveries` each event starts.
struct PostgresEventRepository: EventRepository {
    let connection: PostgresConnection

    /// The deliveries of the event a `WITH event AS (insert ...)` clause made, as a further
    /// clause of the same statement. The endpoints are locked (`FOR KEY SHARE`) as they are read:
    /// an endpoint deleted by a transaction that commits meanwhile is then skipped, where reading
    /// it unlocked made the delivery's foreign key fail (a 500 on the change that emitted the event).
    private static let deliveries: PostgresQuery = """
        INSERT INTO webhook_deliveries (account_id, endpoint_id, event_id)
        SELECT e.account_id, w.id, e.id FROM event e
        JOIN webhook_endpoints w ON w.account_id = e.account_id AND w.status = 'enabled'
            AND (w.enabled_events && ARRAY['*', e.type])
        FOR KEY SHARE OF w
        """

    private static let list = KeysetList(
        table: "events",
        columns: """
            id, account_id, created, type, api_version, data::text AS data, request_id, idempotency_key,
            (SELECT count(*) FROM webhook_deliveries d WHERE d.event_id = events.id AND d.account_id = events.account_id AND d.state = 'pending') AS pending_webhooks
            """,
        noun: "event"
    )

    func record(_ event: NewEvent) async throws {
        try connection.queryLater("WITH \(Self.clauses(recording: event)) SELECT 1")
    }

    /// The `WITH` clauses that insert `event` and start its deliveries, for a statement that
    /// records an event beside its change (a new customer's).
    static func clauses(recording event: NewEvent) -> PostgresQuery {
        """
        event AS (
            INSERT INTO events (id, account_id, created, type, api_version, data, request_id, idempotency_key)
            VALUES (\(event.id), \(event.account), \(event.created), \(event.type), \(event.apiVersion),
                    \(PostgresJSON(event.data, type: .json)), \(event.requestID), \(event.idempotencyKey))
            RETURNING id, account_id, type
        ), deliveries AS (\(Self.deliveries))
        """
    }

    func find(_ id: String, account: String) async throws -> StoredEvent? {
        try await connection.query(
            "SELECT \(unsafeSQL: Self.list.columns) FROM events WHERE id = \(id) AND account_id = \(account)"
        ).first.map(Self.event)
    }

    func list(_ query: EventQuery, pagination: Pagination) async throws -> Page<StoredEvent> {
        var filter: PostgresQuery = "account_id = \(query.account) AND \(query.created?.condition(on: "created") ?? "TRUE")"
        switch query.types {
        case nil: break
        case .exactly(let type): filter.append(" AND type = \(type)")
        case .prefix(let prefix):
            let pattern = prefix.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
                .replacingOccurrences(of: "_", with: "\\_")
            filter.append(" AND type LIKE \(pattern + "%")")
        case .anyOf(let types): filter.append(" AND type = ANY(\(PostgresTextArray(types)))")
        }
        return try await Self.list.page(on: connection, where: filter, pagination: pagination, decode: Self.event)
    }

    func events(ids: [String]) async throws -> [StoredEvent] {
        let rows = try await connection.query(
            "SELECT \(unsafeSQL: Self.list.columns) FROM events WHERE id = ANY(\(PostgresTextArray(ids)))"
        )
        // A row that cannot be read is left out, as one that does not exist.
        return rows.compactMap { try? Self.event($0) }
    }

    private static func event(_ row: PostgresRow) throws -> StoredEvent {
        StoredEvent(
            event: NewEvent(
                id: try row["id"], account: try row["account_id"], created: try row["created"], type: try row["type"],
                apiVersion: try row["api_version"], data: try row["data"], requestID: try row["request_id"],
                idempotencyKey: try row["idempotency_key"]
            ),
            pendingWebhooks: try row["pending_webhooks"]
        )
    }
}
