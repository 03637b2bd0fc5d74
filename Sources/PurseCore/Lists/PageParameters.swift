/// The parameters of a list that has no filters of its own: `limit`, `starting_after`,
/// `ending_before`.
public struct PageParameters: Decodable, Sendable, PaginatedParameters {
    public var limit: Int?
    public var startingAfter: String?
    public var endingBefore: String?

    enum CodingKeys: String, CodingKey {
        case limit
        case startingAfter = "starting_after"
        case endingBefore = "ending_before"
    }
}
