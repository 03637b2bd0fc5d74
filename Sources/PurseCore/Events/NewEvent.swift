public import PurseModels

/// An event about to be recorded, its data (`{"object": ..., "previous_attributes": ...}`)
/// already written as JSON, so the object is encoded once.
public struct NewEvent: Sendable, Equatable {
    public let id: String
    public let account: String
    public let created: Int
    public let type: String
    public let apiVersion: String
    public let data: String
    public let requestID: String?
    public let idempotencyKey: String?

    public init(
        id: String, account: String, created: Int, type: String, apiVersion: String, data: String, requestID: String?,
        idempotencyKey: String?
    ) {
        self.id = id
        self.account = account
        self.created = created
        self.type = type
        self.apiVersion = apiVersion
        self.data = data
        self.requestID = requestID
        self.idempotencyKey = idempotencyKey
    }
}

extension NewEvent {
    /// The event of a change to `object`, with the attributes it changed from.
    public init(_ type: String, object: JSONValue, previousAttributes: JSONValue? = nil, account: String, request: RequestInfo?) {
        // EventData's shape, built directly: the object is already JSON, so no encoder runs.
        var data: JSONValue = ["object": object]
        if let previousAttributes { data["previous_attributes"] = previousAttributes }
        self.init(type, data: JSONWriter.string(data), account: account, request: request)
    }

    /// The event of a new object already written as JSON (a created customer, whose bytes are
    /// also the response): no tree is built for it.
    public init(_ type: String, rendered object: RenderedJSON, account: String, request: RequestInfo?) {
        self.init(type, data: #"{"object":"# + String(decoding: object.bytes, as: UTF8.self) + "}", account: account, request: request)
    }

    /// The event of a change from `old` to `new`: `*.updated` with the attributes that changed,
    /// or nil when nothing did.
    public init?<Object: Encodable & Equatable>(
        _ type: String, from old: Object, to new: Object, account: String, request: RequestInfo?
    )
        throws
    {
        guard old != new else { return nil }
        let encoder = JSONValueEncoder()
        let before = try encoder.encode(old)
        let after = try encoder.encode(new)
        self.init(
            type, object: after, previousAttributes: AttributeDiff.previousAttributes(from: before, to: after), account: account,
            request: request
        )
    }

    private init(_ type: String, data: String, account: String, request: RequestInfo?) {
        self.init(
            id: ObjectID.make(.event), account: account, created: Clock.now, type: type,
            apiVersion: request?.apiVersion ?? RequestInfo.defaultAPIVersion, data: data, requestID: request?.id,
            idempotencyKey: request?.idempotencyKey
        )
    }
}
