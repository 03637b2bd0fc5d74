public import Postgres
public import PurseModels

/// Writes events into the outbox, inside the change's own statement or transaction, so an event
/// exists exactly when its change does.
public struct EventRecorder: Sendable {
    public init() {}

    /// An `INSERT INTO events` to run as part of the change: a statement of its own in the
    /// transaction, or a `WITH` clause of the change's statement.
    public func insert(
        _ type: String,
        object: JSONValue,
        previousAttributes: JSONValue? = nil,
        account: String,
        request: RequestInfo?
    ) -> PostgresQuery {
        let data = EventData(object: object, previousAttributes: previousAttributes)
        // `try!`: EventData holds only JSON, which always encodes.
        let json = PostgresJSON(JSONWriter.string(try! JSONValueEncoder().encode(data)), type: .json)
        return """
            INSERT INTO events (id, account_id, created, type, api_version, data, request_id, idempotency_key)
            VALUES (\(ObjectID.make(.event)), \(account), \(Clock.now), \(type),
                    \(request?.apiVersion ?? RequestInfo.defaultAPIVersion), \(json), \(request?.id), \(request?.idempotencyKey))
            """
    }

    /// Records an event as its own statement on `connection` (inside the caller's transaction).
    public func record(
        _ type: String,
        object: JSONValue,
        previousAttributes: JSONValue? = nil,
        account: String,
        request: RequestInfo?,
        on connection: PostgresConnection
    ) throws {
        try connection.query(
            insert(type, object: object, previousAttributes: previousAttributes, account: account, request: request)
        )
    }
}
