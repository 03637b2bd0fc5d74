/// An event: something that changed, with the object as it became.
public struct Event: Codable, Sendable, Hashable {
    public var id: String
    public var object: String = "event"
    public var account: String
    public var apiVersion: String
    public var created: Int
    public var data: EventData
    public var livemode: Bool = false
    public var pendingWebhooks: Int
    public var request: EventRequest?
    public var type: String

    public init(
        id: String, account: String, apiVersion: String, created: Int, data: EventData,
        pendingWebhooks: Int = 0, request: EventRequest?, type: String
    ) {
        self.id = id
        self.account = account
        self.apiVersion = apiVersion
        self.created = created
        self.data = data
        self.pendingWebhooks = pendingWebhooks
        self.request = request
        self.type = type
    }

    enum CodingKeys: String, CodingKey {
        case id, object, account
        case apiVersion = "api_version"
        case created, data, livemode
        case pendingWebhooks = "pending_webhooks"
        case request, type
    }
}

/// `event.data`: the object, and on `*.updated` events the previous values of what changed.
public struct EventData: Codable, Sendable, Hashable {
    public var object: JSONValue
    public var previousAttributes: JSONValue?

    public init(object: JSONValue, previousAttributes: JSONValue? = nil) {
        self.object = object
        self.previousAttributes = previousAttributes
    }

    enum CodingKeys: String, CodingKey {
        case object
        case previousAttributes = "previous_attributes"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(object, forKey: .object)
        // Only updates carry previous_attributes; other events leave the key out, as Stripe does.
        if let previousAttributes { try container.encode(previousAttributes, forKey: .previousAttributes) }
    }
}

/// The API request that caused an event.
public struct EventRequest: Codable, Sendable, Hashable {
    public var id: String?
    public var idempotencyKey: String?

    public init(id: String?, idempotencyKey: String?) {
        self.id = id
        self.idempotencyKey = idempotencyKey
    }

    enum CodingKeys: String, CodingKey {
        case id
        case idempotencyKey = "idempotency_key"
    }
}
