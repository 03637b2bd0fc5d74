/// A filter on a timestamp such as `created`: an exact value (`created=1700000000`) or bounds
/// (`created[gte]=...&created[lt]=...`).
public struct RangeFilter: Decodable, Sendable, Equatable {
    public var gt: Int?
    public var gte: Int?
    public var lt: Int?
    public var lte: Int?

    enum CodingKeys: String, CodingKey { case gt, gte, lt, lte }

    public init(gt: Int? = nil, gte: Int? = nil, lt: Int? = nil, lte: Int? = nil) {
        self.gt = gt
        self.gte = gte
        self.lt = lt
        self.lte = lte
    }

    public init(from decoder: any Decoder) throws {
        if let bounds = try? decoder.container(keyedBy: CodingKeys.self) {
            gt = try bounds.decodeIfPresent(Int.self, forKey: .gt)
            gte = try bounds.decodeIfPresent(Int.self, forKey: .gte)
            lt = try bounds.decodeIfPresent(Int.self, forKey: .lt)
            lte = try bounds.decodeIfPresent(Int.self, forKey: .lte)
        } else {
            let exact = try decoder.singleValueContainer().decode(Int.self)
            gte = exact
            lte = exact
        }
    }
}
