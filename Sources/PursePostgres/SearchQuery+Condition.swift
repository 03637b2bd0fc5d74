import Postgres
import PurseCore

extension SearchQuery {
    /// The query as a condition on a table, given the column of each field (code constants).
    /// Text is compared lower-cased, as the trigram indexes of migration 0021 and the metadata
    /// index of 0024 hold it, so that words, substrings and metadata values are found through an
    /// index rather than a scan.
    func condition(columns: [String: String]) -> PostgresQuery {
        var condition: PostgresQuery = "("
        for (index, clause) in clauses.enumerated() {
            if index > 0 { condition.append(connective == .and ? " AND " : " OR ") }
            // The parser admits only the resource's fields, each of which has a column here: a
            // field's name from the query never becomes SQL.
            guard let column = columns[clause.field] else { preconditionFailure("no column for \(clause.field)") }
            let test = clause.condition(on: column)
            // A negated clause holds for rows where the field is absent too, as Stripe's does. A
            // positive one stays bare: a NULL fails it as false would, and only the bare
            // expression matches an index's.
            condition.append(clause.negated ? "NOT coalesce(\(test), false)" : test)
        }
        condition.append(")")
        return condition
    }
}

extension SearchQuery {
    /// Whether an index narrows the query down before its rows are read: an AND with a positive
    /// text or metadata clause, or an OR of nothing else. Such a query is best answered by
    /// finding its rows through those indexes, then ordering them; any other (a `created` range,
    /// negations) by reading the account's customers newest first until a page is full, which
    /// PostgreSQL's planner also picks for the first kind when its estimate of the matches is high.
    var narrowsThroughAnIndex: Bool {
        let indexed = clauses.map { !$0.negated && $0.hasIndex }
        return connective == .and ? indexed.contains(true) : indexed.allSatisfy { $0 }
    }
}

extension SearchClause {
    /// A text clause (trigram indexes) or a metadata value (the folded-metadata index).
    fileprivate var hasIndex: Bool {
        switch value {
        case .text: true
        case .number: key != nil
        case .null: false
        }
    }

    fileprivate func condition(on column: String) -> PostgresQuery {
        switch (key, value) {
        case (let key?, .null):
            return "NOT (\(unsafeSQL: column) ? \(key))"
        case (let key?, .text(let text)):
            // The expression of the index `customers_search_metadata` (migration 0024), word for word.
            return "metadata_folded(\(unsafeSQL: column)) @> jsonb_build_object(\(key)::text, lower(\(text)::text))"
        case (let key?, .number(let number)):
            // Metadata holds text (the parser takes bare numbers only for numeric fields).
            return "metadata_folded(\(unsafeSQL: column)) @> jsonb_build_object(\(key)::text, \(String(number))::text)"
        case (nil, .null):
            return "\(unsafeSQL: column) IS NULL"
        case (nil, .number(let number)):
            return "\(unsafeSQL: column) \(unsafeSQL: comparison.rawValue == ":" ? "=" : comparison.rawValue) \(number)"
        case (nil, .text(let text)) where comparison == .contains:
            return "lower(\(unsafeSQL: column)) LIKE \("%" + Self.escapingLike(text.lowercased()) + "%")"
        case (nil, .text(let text)):
            let words = Self.words(of: text)
            guard !words.isEmpty else { return "lower(\(unsafeSQL: column)) = lower(\(text))" }
            // Each word as a substring too: the trigram index then skips through the rows that
            // have the rare words, where the pattern alone made it read every row with the common
            // ones (an email's domain: 30 ms against 1 ms at a million customers).
            var condition: PostgresQuery = "("
            for word in words { condition.append("lower(\(unsafeSQL: column)) LIKE \("%" + word + "%") AND ") }
            condition.append("lower(\(unsafeSQL: column)) ~ \(Self.wordsInOrder(words)))")
            return condition
        }
    }

    /// The value's words, lower-cased: letters and digits only, so nothing in them is special to
    /// a regular expression or a LIKE pattern.
    private static func words(of text: String) -> [String] {
        text.lowercased().split { !($0.isLetter || $0.isNumber) }.map(String.init)
    }

    /// Stripe's exact match on a string: the words, in order, as whole words of the field
    /// (`name:'one two'` matches "One Two Three", not "someone two").
    private static func wordsInOrder(_ words: [String]) -> String {
        "(^|[^[:alnum:]])" + words.joined(separator: "[^[:alnum:]]+") + "([^[:alnum:]]|$)"
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
