public import Postgres
public import PurseModels

/// Writes events into the outbox, inside the change's own statement or transaction, so an event
/// exists exactly when its change does; and with it one webhook delivery for each of the
/// account's enabled endpoints that wants the event's type.
public struct EventRecorder: Sendable {
    public init() {}

    /// The deliveries of the event a `WITH event AS (insert ...)` clause made, as a further
    /// clause of the same statement. The endpoints are locked (`FOR KEY SHARE`) as they are read:
    /// an endpoint deleted by a transaction that commits meanwhile is then skipped, where reading
    /// it unlocked made the delivery's foreign key fail (a 500 on the change that emitted the event).
    public static let deliveries: PostgresQuery = """
        INSERT INTO webhook_deliveries (account_id, endpoint_id, event_id)
        SELECT e.account_id, w.id, e.id FROM event e
        JOIN webhook_endpoints w ON w.account_id = e.account_id AND w.status = 'enabled'
            AND (w.enabled_events && ARRAY['*', e.type])
        FOR KEY SHARE OF w
        """

    /// An `INSERT INTO events ... RETURNING id, account_id, type`, to run as the `event` clause
    /// of the change's statement, followed by ``deliveries``.
    public func insert(
        _ type: String,
        object: JSONValue,
        previousAttributes: JSONValue? = nil,
        account: String,
        request: RequestInfo?
    ) -> PostgresQuery {
        // EventData's shape, built directly: the object is already JSON, so no encoder runs.
        var data: JSONValue = ["object": object]
        if let previousAttributes { data["previous_attributes"] = previousAttributes }
        return insert(type, data: JSONWriter.string(data), account: account, request: request)
    }

    /// ``insert(_:object:previousAttributes:account:request:)`` for a new object already written
    /// as JSON (a created customer, whose bytes are also the response): no tree is built for it.
    public func insert(_ type: String, rendered object: RenderedJSON, account: String, request: RequestInfo?) -> PostgresQuery {
        insert(type, data: #"{"object":"# + String(decoding: object.bytes, as: UTF8.self) + "}", account: account, request: request)
    }

    private func insert(_ type: String, data: String, account: String, request: RequestInfo?) -> PostgresQuery {
        """
        INSERT INTO events (id, account_id, created, type, api_version, data, request_id, idempotency_key)
        VALUES (\(ObjectID.make(.event)), \(account), \(Clock.now), \(type),
                \(request?.apiVersion ?? RequestInfo.defaultAPIVersion), \(PostgresJSON(data, type: .json)), \(request?.id),
                \(request?.idempotencyKey))
        RETURNING id, account_id, type
        """
    }

    /// Records an event on `connection` (inside the caller's transaction): in a statement of its
    /// own, or in one statement with `change`, the INSERT, UPDATE or DELETE the event reports
    /// when its result is not needed. Nothing reads the statement's rows, so it is queued to
    /// travel with the connection's next round trip (often the COMMIT); an error it meets is
    /// thrown there, and the transaction rolls back as for any other.
    public func record(
        _ type: String,
        object: JSONValue,
        previousAttributes: JSONValue? = nil,
        account: String,
        request: RequestInfo?,
        with change: PostgresQuery? = nil,
        on connection: isolated PostgresConnection
    ) async throws {
        var statement: PostgresQuery = "WITH "
        if let change { statement.append("change AS (\(change)), ") }
        let event = insert(type, object: object, previousAttributes: previousAttributes, account: account, request: request)
        statement.append("event AS (\(event)), deliveries AS (\(Self.deliveries)) SELECT 1")
        try connection.queryLater(statement)
    }
}
