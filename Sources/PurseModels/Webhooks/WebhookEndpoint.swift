/// A webhook endpoint: where Purse POSTs the events it records. `secret` (`whsec_...`) is shown
/// when the endpoint is created.
public struct WebhookEndpoint: Codable, Sendable, Hashable {
    public var id: String
    public var object: String = "webhook_endpoint"
    public var apiVersion: String?
    public var application: String?
    public var created: Int
    public var description: String?
    public var enabledEvents: [String]
    public var livemode: Bool = false
    public var metadata: Metadata
    public var secret: String?
    /// `enabled` or `disabled`.
    public var status: String
    public var url: String

    public init(
        id: String, apiVersion: String?, created: Int, description: String?, enabledEvents: [String], metadata: Metadata,
        secret: String?, status: String, url: String
    ) {
        self.id = id
        self.apiVersion = apiVersion
        self.created = created
        self.description = description
        self.enabledEvents = enabledEvents
        self.metadata = metadata
        self.secret = secret
        self.status = status
        self.url = url
    }

    enum CodingKeys: String, CodingKey {
        case id, object
        case apiVersion = "api_version"
        case application, created, description
        case enabledEvents = "enabled_events"
        case livemode, metadata, secret, status, url
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(object, forKey: .object)
        try container.encodeIfPresent(apiVersion, forKey: .apiVersion)
        try container.encodeIfPresent(application, forKey: .application)
        try container.encode(created, forKey: .created)
        try container.encodeIfPresent(description, forKey: .description)
        try container.encode(enabledEvents, forKey: .enabledEvents)
        try container.encode(livemode, forKey: .livemode)
        try container.encode(metadata, forKey: .metadata)
        // The signing secret appears only when the endpoint is created.
        if let secret { try container.encode(secret, forKey: .secret) }
        try container.encode(status, forKey: .status)
        try container.encode(url, forKey: .url)
    }
}

/// One attempt to deliver an event to an endpoint (Purse's own).
public struct WebhookDeliveryAttempt: Codable, Sendable, Hashable {
    public var id: String
    public var object: String = "webhook_delivery_attempt"
    public var created: Int
    public var durationMs: Int
    public var endpoint: String
    public var error: String?
    public var event: String
    /// When the next attempt is due, or nil when this one succeeded or was the last.
    public var nextRetryAt: Int?
    public var statusCode: Int?

    public init(
        id: String, created: Int, durationMs: Int, endpoint: String, error: String?, event: String, nextRetryAt: Int?,
        statusCode: Int?
    ) {
        self.id = id
        self.created = created
        self.durationMs = durationMs
        self.endpoint = endpoint
        self.error = error
        self.event = event
        self.nextRetryAt = nextRetryAt
        self.statusCode = statusCode
    }

    enum CodingKeys: String, CodingKey {
        case id, object, created
        case durationMs = "duration_ms"
        case endpoint, error, event
        case nextRetryAt = "next_retry_at"
        case statusCode = "status_code"
    }
}
