/// `GET /v1/billing_portal/configurations`.
public struct BillingPortalConfigurationListParameters: Decodable, Sendable, PaginatedParameters {
    public var active: Bool?
    public var isDefault: Bool?
    public var limit: Int?
    public var startingAfter: String?
    public var endingBefore: String?

    enum CodingKeys: String, CodingKey {
        case active
        case isDefault = "is_default"
        case limit
        case startingAfter = "starting_after"
        case endingBefore = "ending_before"
    }
}
