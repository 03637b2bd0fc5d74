import Foundation
public import Postgres
public import PurseModels

/// `/v1/webhook_endpoints` (secret key): where events go.
public struct WebhookEndpointService: Sendable {
    private let pool: PostgresClient
    private let secrets: DerivedSecrets
    /// Which endpoint URLs are accepted.
    private let destinations: WebhookDestinations

    /// The event types Purse records; `*` means all of them.
    public static let eventTypes: Set<String> = [
        "customer.created", "customer.updated", "customer.deleted",
        "payment_method.attached", "payment_method.detached", "payment_method.updated", "payment_method.automatically_updated",
        "setup_intent.created", "setup_intent.requires_action", "setup_intent.succeeded", "setup_intent.setup_failed",
        "setup_intent.canceled",
    ]

    public init(pool: PostgresClient, masterKey: MasterKey, destinations: WebhookDestinations) {
        self.pool = pool
        self.secrets = DerivedSecrets(masterKey: masterKey)
        self.destinations = destinations
    }

    public struct CreateParameters: Decodable, Sendable {
        public var url: String
        public var enabledEvents: [String]
        public var description: String?
        public var metadata: MetadataParameter?
        public var apiVersion: String?

        enum CodingKeys: String, CodingKey {
            case url
            case enabledEvents = "enabled_events"
            case description, metadata
            case apiVersion = "api_version"
        }
    }

    public struct UpdateParameters: Decodable, Sendable {
        public var url: String?
        public var enabledEvents: [String]?
        public var description: Patch<String>?
        public var metadata: Patch<MetadataParameter>?
        public var disabled: Bool?

        enum CodingKeys: String, CodingKey {
            case url
            case enabledEvents = "enabled_events"
            case description, metadata, disabled
        }
    }

    public struct ListParameters: Decodable, Sendable, PaginatedParameters {
        public var limit: Int?
        public var startingAfter: String?
        public var endingBefore: String?

        enum CodingKeys: String, CodingKey {
            case limit
            case startingAfter = "starting_after"
            case endingBefore = "ending_before"
        }
    }

    static let columns = "id, created, url, enabled_events, description, metadata, api_version, status"
    static let list = KeysetList(table: "webhook_endpoints", columns: columns, noun: "webhook endpoint")
    static let attemptColumns = "id, created, endpoint_id, event_id, status_code, duration_ms, error, next_retry_at"
    static let attempts = KeysetList(table: "webhook_attempts", columns: attemptColumns, noun: "delivery attempt")

    /// Creates an endpoint and shows its signing secret, as Stripe does.
    public func create(_ params: CreateParameters, by caller: Credential) async throws -> WebhookEndpoint {
        let description = try TextRules.limited(params.description, to: 5000, param: "description")
        let events = try Self.checkedEvents(params.enabledEvents)
        let metadata = try MetadataRules.new(params.metadata)
        // The URL last of the parameters: its check may look the host up.
        var endpoint = WebhookEndpoint(
            id: ObjectID.make(.webhookEndpoint), apiVersion: params.apiVersion, created: Clock.now, description: description,
            enabledEvents: events, metadata: metadata, secret: nil, status: "enabled", url: try await checkedURL(params.url)
        )
        if let version = params.apiVersion, (try? StripeVersion.parse(version)) == nil {
            throw PurseError.invalidParameter("api_version", "Invalid API version: \(version)")
        }
        try await pool.query(
            """
            INSERT INTO webhook_endpoints (id, account_id, created, url, enabled_events, description, metadata, api_version, status)
            VALUES (\(endpoint.id), \(caller.accountID), \(endpoint.created), \(endpoint.url),
                    \(PostgresTextArray(endpoint.enabledEvents)), \(endpoint.description), \(StoredJSON.encode(endpoint.metadata)),
                    \(endpoint.apiVersion), 'enabled')
            """
        )
        endpoint.secret = secrets.webhookSigningSecret(endpoint.id)
        return endpoint
    }

    public func retrieve(_ id: String, by caller: Credential) async throws -> WebhookEndpoint {
        let rows = try await pool.query(
            "SELECT \(unsafeSQL: Self.columns) FROM webhook_endpoints WHERE id = \(id) AND account_id = \(caller.accountID)"
        )
        guard let row = rows.first else { throw PurseError.noSuch("webhook endpoint", id, param: "id") }
        return try Self.endpoint(row)
    }

    public func update(_ id: String, _ params: UpdateParameters, by caller: Credential) async throws -> WebhookEndpoint {
        let url: String?
        if let requested = params.url { url = try await checkedURL(requested) } else { url = nil }
        let events = try params.enabledEvents.map(Self.checkedEvents)
        return try await pool.withTransaction { connection in
            let rows = try await connection.query(
                """
                SELECT \(unsafeSQL: Self.columns) FROM webhook_endpoints
                WHERE id = \(id) AND account_id = \(caller.accountID) FOR NO KEY UPDATE
                """
            )
            guard let row = rows.first else { throw PurseError.noSuch("webhook endpoint", id, param: "id") }
            var endpoint = try Self.endpoint(row)
            if let url { endpoint.url = url }
            if let events { endpoint.enabledEvents = events }
            if let description = params.description {
                endpoint.description = try TextRules.limited(description.value, to: 5000, param: "description")
            }
            endpoint.metadata = try MetadataRules.updated(endpoint.metadata, with: params.metadata)
            if let disabled = params.disabled { endpoint.status = disabled ? "disabled" : "enabled" }
            try await connection.query(
                """
                UPDATE webhook_endpoints
                SET url = \(endpoint.url), enabled_events = \(PostgresTextArray(endpoint.enabledEvents)),
                    description = \(endpoint.description), metadata = \(StoredJSON.encode(endpoint.metadata)),
                    status = \(endpoint.status)
                WHERE id = \(id) AND account_id = \(caller.accountID)
                """
            )
            if endpoint.status == "disabled" {
                // A disabled endpoint hears nothing more, not even what was queued for it.
                try await connection.query(
                    "UPDATE webhook_deliveries SET state = 'failed' WHERE endpoint_id = \(id) AND state = 'pending'"
                )
            }
            return endpoint
        }
    }

    public func delete(_ id: String, by caller: Credential) async throws -> DeletedObject {
        let rows = try await pool.query(
            "DELETE FROM webhook_endpoints WHERE id = \(id) AND account_id = \(caller.accountID) RETURNING id"
        )
        guard !rows.isEmpty else { throw PurseError.noSuch("webhook endpoint", id, param: "id") }
        return DeletedObject(id: id, object: "webhook_endpoint")
    }

    public func list(_ params: ListParameters, by caller: Credential) async throws -> Page<WebhookEndpoint> {
        let pagination = try params.pagination()
        let filter: PostgresQuery = "account_id = \(caller.accountID)"
        return try await pool.withConnection { connection in
            try await Self.list.page(on: connection, where: filter, pagination: pagination, decode: Self.endpoint)
        }
    }

    /// The delivery attempts to an endpoint, newest first.
    public func attempts(_ id: String, _ params: ListParameters, by caller: Credential) async throws -> Page<WebhookDeliveryAttempt> {
        _ = try await retrieve(id, by: caller)
        let pagination = try params.pagination()
        let filter: PostgresQuery = "account_id = \(caller.accountID) AND endpoint_id = \(id)"
        return try await pool.withConnection { connection in
            try await Self.attempts.page(on: connection, where: filter, pagination: pagination) { row in
                WebhookDeliveryAttempt(
                    id: try row["id"], created: try row["created"], durationMs: Int(try row["duration_ms", as: Int32.self]),
                    endpoint: try row["endpoint_id"], error: try row["error"], event: try row["event_id"],
                    nextRetryAt: try row["next_retry_at"], statusCode: try row["status_code", as: Int32?.self].map(Int.init)
                )
            }
        }
    }

    static func checkedEvents(_ events: [String]) throws -> [String] {
        guard !events.isEmpty else {
            throw PurseError.invalidParameter("enabled_events", "Give at least one event type, or * for all.")
        }
        for (index, event) in events.enumerated() where event != "*" && !eventTypes.contains(event) {
            throw PurseError.invalidParameter("enabled_events[\(index)]", "Invalid event type: \(event)")
        }
        return events.reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
    }

    /// The URL, once the destination rules accept it (``WebhookDestinations/checkRegistration(_:)``).
    func checkedURL(_ text: String) async throws -> String {
        do throws(WebhookDestinationPolicy.Refusal) {
            try await destinations.checkRegistration(text)
        } catch {
            throw PurseError.invalidParameter("url", error.message)
        }
        return text
    }

    static func endpoint(_ row: PostgresRow) throws -> WebhookEndpoint {
        WebhookEndpoint(
            id: try row["id"], apiVersion: try row["api_version"], created: try row["created"],
            description: try row["description"],
            enabledEvents: try row["enabled_events", as: PostgresTextArray.self].elements,
            metadata: try StoredJSON.decode(Metadata.self, from: try row["metadata"]), secret: nil,
            status: try row["status"], url: try row["url"]
        )
    }
}
