public import Postgres

/// Lists a table's rows newest first with keyset pagination: ordered by (`created`, `seq`)
/// descending, so objects created in the same second keep their creation order, and a cursor
/// is a position in that order rather than an OFFSET.
public struct KeysetList: Sendable {
    /// The table, and the columns to select (code constants, never request data).
    public let table: String
    public let columns: String
    /// The word for an object in "No such customer" when a cursor is unknown.
    public let noun: String

    public init(table: String, columns: String, noun: String) {
        self.table = table
        self.columns = columns
        self.noun = noun
    }

    /// Fetches one page of the rows matching `filter` (which scopes it to an account, at least).
    public func page<Element>(
        on connection: PostgresConnection,
        where filter: PostgresQuery,
        pagination: Pagination,
        decode: (PostgresRow) throws -> Element
    ) throws -> Page<Element> {
        var query: PostgresQuery = "SELECT \(unsafeSQL: columns) FROM \(unsafeSQL: table) WHERE \(filter)"
        var newestFirst = true
        if let cursor = pagination.cursor {
            let (id, param) = switch cursor {
            case .after(let id): (id, "starting_after")
            case .before(let id): (id, "ending_before")
            }
            let position = try connection.query(
                "SELECT created, seq FROM \(unsafeSQL: table) WHERE id = \(id) AND \(filter)"
            )
            guard let row = position.first else {
                throw PurseError(.invalidRequest, code: "resource_missing", message: "No such \(noun): '\(id)'", param: param)
            }
            let created: Int = try row["created"]
            let seq: Int = try row["seq"]
            if case .after = cursor {
                query.append(" AND (created, seq) < (\(created), \(seq))")
            } else {
                query.append(" AND (created, seq) > (\(created), \(seq))")
                newestFirst = false
            }
        }
        query.append(
            newestFirst
                ? " ORDER BY created DESC, seq DESC LIMIT \(pagination.limit + 1)"
                : " ORDER BY created ASC, seq ASC LIMIT \(pagination.limit + 1)"
        )
        let rows = try connection.query(query)
        var elements = try rows.prefix(pagination.limit).map(decode)
        if !newestFirst { elements.reverse() }
        return Page(data: elements, hasMore: rows.count > pagination.limit)
    }
}
