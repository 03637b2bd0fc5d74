import Postgres
import PurseCore

/// Lists a table's rows newest first with keyset pagination: ordered by (`created`, `seq`)
/// descending, so objects created in the same second keep their creation order, and a cursor
/// is a position in that order rather than an OFFSET.
struct KeysetList: Sendable {
    /// The table, and the columns to select (code constants, never request data).
    let table: String
    let columns: String
    /// The word for an object in "No such customer" when a cursor is unknown.
    let noun: String

    /// Fetches one page of the rows matching `filter` (which scopes it to an account, at least).
    func page<Element>(
        on connection: PostgresConnection,
        where filter: PostgresQuery,
        pagination: Pagination,
        decode: (PostgresRow) throws -> Element
    ) async throws -> Page<Element> {
        var query = select(where: filter)
        var newestFirst = true
        if let cursor = pagination.cursor {
            let (id, param) =
                switch cursor {
                case .after(let id): (id, "starting_after")
                case .before(let id): (id, "ending_before")
                }
            let position = try await connection.query(
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
        let rows = try await connection.query(Self.ordered(query, newestFirst: newestFirst, limit: pagination.limit))
        var elements = try rows.prefix(pagination.limit).map(decode)
        if !newestFirst { elements.reverse() }
        return Page(data: elements, hasMore: rows.count > pagination.limit)
    }

    /// The first page (no cursor) of the rows matching `filter`: one statement.
    func firstPage<Element>(
        on connection: PostgresConnection,
        where filter: PostgresQuery,
        limit: Int,
        decode: (PostgresRow) throws -> Element
    ) async throws -> Page<Element> {
        let rows = try await connection.query(Self.ordered(select(where: filter), newestFirst: true, limit: limit))
        return Page(data: try rows.prefix(limit).map(decode), hasMore: rows.count > limit)
    }

    private func select(where filter: PostgresQuery) -> PostgresQuery {
        "SELECT \(unsafeSQL: columns) FROM \(unsafeSQL: table) WHERE \(filter)"
    }

    /// `query` in list order, with one row more than a page, which tells whether there are more.
    private static func ordered(_ query: PostgresQuery, newestFirst: Bool, limit: Int) -> PostgresQuery {
        var query = query
        query.append(
            newestFirst
                ? " ORDER BY created DESC, seq DESC LIMIT \(limit + 1)"
                : " ORDER BY created ASC, seq ASC LIMIT \(limit + 1)"
        )
        return query
    }
}
