/// One page of search results, with where the next one starts.
public struct SearchResultPage<Element: Sendable>: Sendable {
    public var data: [Element]
    /// Set when there are more results.
    public var next: SearchPosition?

    public init(data: [Element], next: SearchPosition?) {
        self.data = data
        self.next = next
    }
}

/// A search's answer, as `search_result` renders it.
public struct SearchResult<Element: Sendable>: Sendable {
    public var data: [Element]
    public var nextPage: String?
    /// With `expand[]=total_count`: how many match, counted up to ``maximumTotalCount``.
    public var totalCount: Int?

    /// Stripe's total is "only accurate up to 10,000"; Purse stops counting there.
    public static var maximumTotalCount: Int { 10_000 }

    public var hasMore: Bool { nextPage != nil }

    public init(data: [Element], nextPage: String?, totalCount: Int?) {
        self.data = data
        self.nextPage = nextPage
        self.totalCount = totalCount
    }
}
