import Postgres
import PurseCore

extension RangeFilter {
    /// The condition on `column` (a code constant), or TRUE when there are no bounds.
    func condition(on column: String) -> PostgresQuery {
        var query: PostgresQuery = "TRUE"
        if let gt { query.append(" AND \(unsafeSQL: column) > \(gt)") }
        if let gte { query.append(" AND \(unsafeSQL: column) >= \(gte)") }
        if let lt { query.append(" AND \(unsafeSQL: column) < \(lt)") }
        if let lte { query.append(" AND \(unsafeSQL: column) <= \(lte)") }
        return query
    }
}
