/// An ephemeral key: a short-lived credential for one customer's device. `secret` is shown only
/// in the response that creates it.
public struct EphemeralKey: Codable, Sendable, Hashable {
    public var id: String
    public var object: String = "ephemeral_key"
    public var associatedObjects: [AssociatedObject]
    public var created: Int
    public var expires: Int
    public var livemode: Bool = false
    public var secret: String?

    public init(id: String, customer: String, created: Int, expires: Int, secret: String?) {
        self.id = id
        self.associatedObjects = [AssociatedObject(type: "customer", id: customer)]
        self.created = created
        self.expires = expires
        self.secret = secret
    }

    enum CodingKeys: String, CodingKey {
        case id, object
        case associatedObjects = "associated_objects"
        case created, expires, livemode, secret
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(object, forKey: .object)
        try container.encode(associatedObjects, forKey: .associatedObjects)
        try container.encode(created, forKey: .created)
        try container.encode(expires, forKey: .expires)
        try container.encode(livemode, forKey: .livemode)
        // Only the creating response carries the secret.
        if let secret { try container.encode(secret, forKey: .secret) }
    }

    public struct AssociatedObject: Codable, Sendable, Hashable {
        public var type: String
        public var id: String
    }
}
