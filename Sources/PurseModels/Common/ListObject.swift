/// Stripe's list envelope: `{object: "list", data, has_more, url}`.
public struct ListObject<Element: Codable & Sendable>: Codable, Sendable {
    public var object: String = "list"
    public var data: [Element]
    public var hasMore: Bool
    /// The list's path without its query string, such as `/v1/customers`.
    public var url: String

    public init(data: [Element], hasMore: Bool, url: String) {
        self.data = data
        self.hasMore = hasMore
        self.url = url
    }

    enum CodingKeys: String, CodingKey {
        case object, data
        case hasMore = "has_more"
        case url
    }
}

/// What a delete returns: `{id, object, deleted: true}`.
public struct DeletedObject: Codable, Sendable, Hashable {
    public var id: String
    public var object: String
    public var deleted: Bool = true

    public init(id: String, object: String) {
        self.id = id
        self.object = object
    }
}
