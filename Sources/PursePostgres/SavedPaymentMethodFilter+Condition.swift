import Postgres
import PurseCore
import PurseModels

extension CustomerSheetSettings.SavedPaymentMethodFilter {
    /// The methods the filter lets a client credential see, as a condition on `payment_methods`
    /// (prefixed by `table`): an empty list filters nothing; card filters leave other types alone;
    /// expiry is judged by today's month on the server, in UTC.
    func condition(now: Int, table: String = "payment_methods") -> PostgresQuery {
        var query: PostgresQuery = "TRUE"
        let column = { (name: String) in "\(table).\(name)" }
        if !card.funding.isEmpty {
            query.append(
                " AND (\(unsafeSQL: column("type")) <> 'card' OR \(unsafeSQL: column("card_funding")) = ANY(\(PostgresTextArray(card.funding))))")
        }
        if !card.brands.isEmpty {
            query.append(
                " AND (\(unsafeSQL: column("type")) <> 'card' OR \(unsafeSQL: column("card_brand")) = ANY(\(PostgresTextArray(card.brands))))")
        }
        if hideExpired {
            let year = Int32(Calendar.year(of: now))
            let month = Int32(Calendar.month(of: now))
            query.append(
                " AND (\(unsafeSQL: column("type")) <> 'card' OR (\(unsafeSQL: column("card_exp_year")), \(unsafeSQL: column("card_exp_month"))) >= (\(year), \(month)))"
            )
        }
        if !allowRedisplay.isEmpty {
            query.append(" AND \(unsafeSQL: column("allow_redisplay")) = ANY(\(PostgresTextArray(allowRedisplay)))")
        }
        if !countries.isEmpty {
            query.append(" AND \(unsafeSQL: column("country")) = ANY(\(PostgresTextArray(countries)))")
        }
        return query
    }
}
