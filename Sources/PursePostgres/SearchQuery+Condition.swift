import Postgres
import PurseCore

extension SearchQuery {
    /// The query as a condition on a table, given the column of each field (code constants).
    /// Text is compared lower-cased, as the trigram indexes of migration 0021 hold it, so that
    /// words, substrings and metadata keys are found through an index rather than a scan.
    func condition(columns: [String: String]) -> PostgresQuery {
        var condition: PostgresQuery = "("
        for (index, clause) in clauses.enumerated() {
            if index > 0 { condition.append(connective == .and ? " AND " : " OR ") }
            // A negated clause holds for rows where the field is absent too, as Stripe's does.
            // The parser admits only the resource's fields, each of which has a column here: a
            // field's name from the query never becomes SQL.
            guard let column = columns[clause.field] else { preconditionFailure("no column for \(clause.field)") }
            let test = clause.condition(on: column)
            condition.append(clause.negated ? "NOT coalesce(\(test), false)" : "coalesce(\(test), false)")
        }
        condition.append(")")
        return condition
    }
}

extension SearchClause {
    fileprivate func condition(on column: String) -> PostgresQuery {
        switch (key, value) {
        case (let key?, .null):
            return "NOT (\(unsafeSQL: column) ? \(key))"
        case (let key?, .text(let text)):
            return "(\(unsafeSQL: column) ? \(key) AND lower(\(unsafeSQL: column) ->> \(key)) = lower(\(text)))"
        case (let key?, .number(let number)):
            // Metadata holds text (the parser takes bare numbers only for numeric fields).
            return "(\(unsafeSQL: column) ? \(key) AND \(unsafeSQL: column) ->> \(key) = \(String(number)))"
        case (nil, .null):
            return "\(unsafeSQL: column) IS NULL"
        case (nil, .number(let number)):
            return "\(unsafeSQL: column) \(unsafeSQL: comparison.rawValue == ":" ? "=" : comparison.rawValue) \(number)"
        case (nil, .text(let text)) where comparison == .contains:
            return "lower(\(unsafeSQL: column)) LIKE \("%" + Self.escapingLike(text.lowercased()) + "%")"
        case (nil, .text(let text)):
            return Self.words(of: text).map { "lower(\(unsafeSQL: column)) ~ \($0)" }
                ?? "lower(\(unsafeSQL: column)) = lower(\(text))"
        }
    }

    /// Stripe's exact match on a string: the value's words, in order, as whole words of the
    /// field (`name:'one two'` matches "One Two Three", not "someone two"). Nil when the value
    /// has no words to match.
    private static func words(of text: String) -> String? {
        let words = text.lowercased().split { !($0.isLetter || $0.isNumber) }
        guard !words.isEmpty else { return nil }
        // Letters and digits only: nothing in them is special to a regular expression.
        return "(^|[^[:alnum:]])" + words.joined(separator: "[^[:alnum:]]+") + "([^[:alnum:]]|$)"
    }

    private static func escapingLike(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if character == "%" || character == "_" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }
}
