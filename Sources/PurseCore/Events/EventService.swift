public import PurseModels

/// Reading the event log: `GET /v1/events` and `GET /v1/events/{id}` (secret key only).
public struct EventService: Sendable {
    private let database: any Database
    private let secrets: DerivedSecrets

    public init(database: any Database, masterKey: MasterKey) {
        self.database = database
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

    public func retrieve(_ id: String, account: String) async throws -> Event {
        let stored = try await database.autocommit { try await $0.events.find(id, account: account) }
        guard let stored else { throw PurseError.noSuch("event", id, param: "id") }
        return try Self.event(stored, secrets: secrets)
    }

    public func list(_ params: ListParams, account: String) async throws -> Page<Event> {
        let pagination = try params.pagination()
        let query = EventQuery(account: account, created: params.created, types: try Self.types(params))
        let page = try await database.autocommit { try await $0.events.list(query, pagination: pagination) }
        let secrets = self.secrets
        return Page(data: try page.data.map { try Self.event($0, secrets: secrets) }, hasMore: page.hasMore)
    }

    /// The types a list asks for: `type` (`customer.created`, or with a trailing `*` every type
    /// starting so, `customer.*`) or `types` (between 1 and 20 exact types), not both.
    private static func types(_ params: ListParams) throws -> EventTypeFilter? {
        switch (params.type, params.types) {
        case (.some, .some):
            throw PurseError.invalidParameter("types", "You may only specify one of these parameters: type, types.")
        case (.some(let type), nil):
            return type.hasSuffix("*") ? .prefix(String(type.dropLast())) : .exactly(type)
        case (nil, .some(let types)):
            guard !types.isEmpty, types.count <= 20 else {
                throw PurseError.invalidParameter("types", "Give between 1 and 20 event types.")
            }
            return .anyOf(types)
        case (nil, nil):
            return nil
        }
    }

    /// An event as stored, with the secrets its object must not keep (a setup intent's client
    /// secret) derived again.
    static func event(_ stored: StoredEvent, secrets: DerivedSecrets) throws -> Event {
        let event = stored.event
        guard case .object(var data) = try JSONReader.parse(event.data, maximumDepth: 512) else {
            throw PurseError(.invalidRequest, message: "A stored event is malformed")
        }
        if var object = data["object"], object["object"] == "setup_intent", let id = object["id"]?.stringValue {
            object["client_secret"] = .string(secrets.setupIntentClientSecret(id))
            data["object"] = object
        }
        let requestID = event.requestID
        let idempotencyKey = event.idempotencyKey
        return Event(
            id: event.id,
            account: event.account,
            apiVersion: event.apiVersion,
            created: event.created,
            data: EventData(object: data["object"] ?? .null, previousAttributes: data["previous_attributes"]),
            pendingWebhooks: stored.pendingWebhooks,
            request: requestID == nil && idempotencyKey == nil ? nil : EventRequest(id: requestID, idempotencyKey: idempotencyKey),
            type: event.type
        )
    }
}
