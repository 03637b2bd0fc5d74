public import Postgres
public import PurseModels

/// Reading the event log: `GET /v1/events` and `GET /v1/events/{id}` (secret key only).
public struct EventService: Sendable {
    private let pool: PostgresClient
    private let secrets: DerivedSecrets

    public init(pool: PostgresClient, masterKey: MasterKey) {
        self.pool = pool
        self.secrets = DerivedSecrets(masterKey: masterKey)
    }

    public struct ListParams: Decodable, Sendable, PaginatedParameters {
        public var type: String?
        public var types: [String]?
        public var created: RangeFilter?
        public var limit: Int?
        public var startingAfter: String?
        public var endingBefore: String?

        enum CodingKeys: String, CodingKey {
            case type, types, created, limit
            case startingAfter = "starting_after"
            case endingBefore = "ending_before"
        }
    }

    static let list = KeysetList(
        table: "events",
        columns: """
            id, account_id, created, type, api_version, data::text AS data, request_id, idempotency_key,
            (SELECT count(*) FROM webhook_deliveries d WHERE d.event_id = events.id AND d.state = 'pending') AS pending_webhooks
            """,
        noun: "event"
    )

    public func retrieve(_ id: String, account: String) async throws -> Event {
        let rows = try await pool.query(
            "SELECT \(unsafeSQL: Self.list.columns) FROM events WHERE id = \(id) AND account_id = \(account)"
        )
        guard let row = rows.first else { throw PurseError.noSuch("event", id, param: "id") }
        return try Self.event(row, secrets: secrets)
    }

    public func list(_ params: ListParams, account: String) async throws -> Page<Event> {
        let pagination = try params.pagination()
        if params.type != nil, params.types != nil {
            throw PurseError.invalidParameter("types", "You may only specify one of these parameters: type, types.")
        }
        var filter: PostgresQuery = "account_id = \(account) AND \(params.created?.condition(on: "created") ?? "TRUE")"
        if let type = params.type {
            filter.append(" AND \(Self.typeCondition(type))")
        }
        if let types = params.types {
            guard !types.isEmpty, types.count <= 20 else {
                throw PurseError.invalidParameter("types", "Give between 1 and 20 event types.")
            }
            filter.append(" AND type = ANY(\(PostgresTextArray(types)))")
        }
        let condition = filter
        let secrets = self.secrets
        return try await pool.withConnection { connection in
            try await Self.list.page(on: connection, where: condition, pagination: pagination) { try Self.event($0, secrets: secrets) }
        }
    }

    /// `customer.created`, or with a trailing `*` every type starting so (`customer.*`).
    private static func typeCondition(_ type: String) -> PostgresQuery {
        guard type.hasSuffix("*") else { return "type = \(type)" }
        let prefix = String(type.dropLast())
            .replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
        return "type LIKE \(prefix + "%")"
    }

    /// An event as stored, with the secrets its object must not keep (a setup intent's client
    /// secret) derived again.
    static func event(_ row: PostgresRow, secrets: DerivedSecrets) throws -> Event {
        let dataText: String = try row["data"]
        guard case .object(var data) = try JSONReader.parse(dataText, maximumDepth: 512) else {
            throw PurseError(.invalidRequest, message: "A stored event is malformed")
        }
        if var object = data["object"], object["object"] == "setup_intent", let id = object["id"]?.stringValue {
            object["client_secret"] = .string(secrets.setupIntentClientSecret(id))
            data["object"] = object
        }
        let requestID: String? = try row["request_id"]
        let idempotencyKey: String? = try row["idempotency_key"]
        return Event(
            id: try row["id"],
            account: try row["account_id"],
            apiVersion: try row["api_version"],
            created: try row["created"],
            data: EventData(object: data["object"] ?? .null, previousAttributes: data["previous_attributes"]),
            pendingWebhooks: try row["pending_webhooks"],
            request: requestID == nil && idempotencyKey == nil ? nil : EventRequest(id: requestID, idempotencyKey: idempotencyKey),
            type: try row["type"]
        )
    }
}
