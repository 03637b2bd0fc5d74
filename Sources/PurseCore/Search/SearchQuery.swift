/// A query in Stripe's search query language, parsed (``SearchQueryParser``): up to ten clauses,
/// all joined by `AND` (a space means the same) or all by `OR`.
public struct SearchQuery: Sendable, Equatable {
    public enum Connective: Sendable, Equatable {
        case and, or
    }

    public var clauses: [SearchClause]
    public var connective: Connective

    public init(clauses: [SearchClause], connective: Connective) {
        self.clauses = clauses
        self.connective = connective
    }
}

/// One clause: a field, how it is compared and with what, possibly negated (`-`).
public struct SearchClause: Sendable, Equatable {
    public enum Comparison: String, Sendable, Equatable {
        /// `:`: on a string field, the value's words in the same order (case-insensitive), as
        /// Stripe's exact match is; on a token or a number, equality.
        case matches = ":"
        /// `~`: a substring of at least three characters (string fields only).
        case contains = "~"
        case greaterThan = ">"
        case greaterThanOrEqual = ">="
        case lessThan = "<"
        case lessThanOrEqual = "<="
    }

    public enum Value: Sendable, Equatable {
        case text(String)
        case number(Int)
        /// `null`: the field is absent.
        case null
    }

    public var negated: Bool
    /// The field's name, as in the query (`email`, `metadata`).
    public var field: String
    /// The key of `metadata['key']`.
    public var key: String?
    public var comparison: Comparison
    public var value: Value

    public init(negated: Bool = false, field: String, key: String? = nil, comparison: Comparison, value: Value) {
        self.negated = negated
        self.field = field
        self.key = key
        self.comparison = comparison
        self.value = value
    }
}

/// What a resource's field holds, which decides the comparisons it takes (Stripe's field types).
public enum SearchFieldKind: Sendable, Equatable {
    /// Exact match only (`metadata`).
    case token
    /// Exact match (by words) and substring.
    case string
    /// Exact match and ranges.
    case numeric

    var name: String {
        switch self {
        case .token: "a token field"
        case .string: "a string field"
        case .numeric: "a numeric field"
        }
    }
}
