/// `limit`, `starting_after` and `ending_before`, checked: a page of 1 to 100 objects (10 by
/// default) after or before an object given by id.
public struct Pagination: Sendable, Equatable {
    public enum Cursor: Sendable, Equatable {
        case after(String)
        case before(String)
    }

    public let limit: Int
    public let cursor: Cursor?

    public static let defaultLimit = 10
    public static let maximumLimit = 100

    public init(limit: Int?, startingAfter: String?, endingBefore: String?) throws {
        let limit = limit ?? Self.defaultLimit
        guard limit >= 1 else {
            throw PurseError.invalidParameter("limit", "This value must be greater than or equal to 1.")
        }
        guard limit <= Self.maximumLimit else {
            throw PurseError.invalidParameter("limit", "This value must be less than or equal to \(Self.maximumLimit).")
        }
        switch (startingAfter, endingBefore) {
        case (let after?, nil): cursor = .after(after)
        case (nil, let before?): cursor = .before(before)
        case (nil, nil): cursor = nil
        case (_?, _?):
            throw PurseError.invalidParameter(
                "ending_before", "You may only specify one of these parameters: starting_after, ending_before."
            )
        }
        self.limit = limit
    }
}

/// The parameters every list endpoint takes.
public protocol PaginatedParameters {
    var limit: Int? { get }
    var startingAfter: String? { get }
    var endingBefore: String? { get }
}

extension PaginatedParameters {
    public func pagination() throws -> Pagination {
        try Pagination(limit: limit, startingAfter: startingAfter, endingBefore: endingBefore)
    }
}

/// One page of a list, newest first.
public struct Page<Element: Sendable>: Sendable {
    public var data: [Element]
    public var hasMore: Bool

    public init(data: [Element], hasMore: Bool) {
        self.data = data
        self.hasMore = hasMore
    }
}
