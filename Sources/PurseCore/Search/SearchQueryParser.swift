/// Reads Stripe's search query language for one resource's fields. Every malformed query is a
/// 400 on `query` that says what is wrong and where; Stripe documents the rules but not its
/// wording, so the wording is Purse's.
///
/// `field:value` (`:` exact, `~` substring of three characters or more, `>` `<` `>=` `<=` on
/// numbers), `-` before a clause negates it, `metadata['key']:'value'`, `field:null` for an
/// absent value. String values are quoted with `'` or `"` (a backslash escapes the next
/// character); numbers may be bare. Clauses are separated by spaces (meaning AND), or by `AND` or
/// `OR` in any case, never both kinds in one query; at most ten clauses; no parentheses.
public struct SearchQueryParser: Sendable {
    public static let maximumClauses = 10
    public static let minimumSubstringLength = 3
    /// Stripe's limit on `query`.
    public static let maximumLength = 5000

    /// The resource's fields by name; `metadata` takes a key.
    let fields: KeyValuePairs<String, SearchFieldKind>
    /// The resource's name in messages ("customers").
    let resource: String

    public init(fields: KeyValuePairs<String, SearchFieldKind>, resource: String) {
        self.fields = fields
        self.resource = resource
    }

    public func parse(_ text: String) throws -> SearchQuery {
        guard text.count <= Self.maximumLength else {
            throw Self.invalid("The query is longer than \(Self.maximumLength) characters.")
        }
        var scanner = Scanner(Array(text))
        scanner.skipSpaces()
        guard !scanner.isAtEnd else {
            throw Self.invalid("The query is empty: give at least one clause, such as email:'jenny@example.com'.")
        }
        var clauses = [try clause(&scanner)]
        var connective: SearchQuery.Connective?
        while !scanner.isAtEnd {
            let start = scanner.position
            guard scanner.skipSpaces() > 0 else {
                throw Self.invalid("Clauses must be separated by a space, AND or OR (at character \(start + 1)).")
            }
            if scanner.isAtEnd { break }
            let joined = scanner.keyword() ?? .and
            if let connective, connective != joined {
                throw Self.invalid(
                    "A query cannot combine AND with OR (a space between clauses means AND): use one of them throughout."
                )
            }
            connective = joined
            clauses.append(try clause(&scanner))
            guard clauses.count <= Self.maximumClauses else {
                throw Self.invalid("A query can have at most \(Self.maximumClauses) clauses.")
            }
        }
        return SearchQuery(clauses: clauses, connective: connective ?? .and)
    }

    private func clause(_ scanner: inout Scanner) throws -> SearchClause {
        let start = scanner.position
        let negated = scanner.take("-")
        let name = scanner.identifier()
        guard !name.isEmpty else {
            throw Self.invalid("Expected a field name at character \(start + 1) of the query.")
        }
        guard let kind = fields.first(where: { $0.key == name })?.value else {
            let names = fields.map(\.key).sorted()
            throw Self.invalid(
                "'\(name)' is not a field you can search \(resource) by; the fields are "
                    + names.dropLast().joined(separator: ", ") + " and " + (names.last ?? "") + "."
            )
        }
        var key: String?
        if scanner.take("[") {
            guard name == "metadata" else { throw Self.invalid("Only metadata takes a key in brackets, not \(name).") }
            guard let quoted = try scanner.quoted(), !quoted.isEmpty else {
                throw Self.invalid("A metadata key is quoted: metadata['key']:'value'.")
            }
            guard scanner.take("]") else { throw Self.invalid("A metadata key ends with ]: metadata['key']:'value'.") }
            key = quoted
        } else if name == "metadata" {
            throw Self.invalid("metadata needs a key: metadata['key']:'value'.")
        }
        guard let comparison = scanner.comparison() else {
            throw Self.invalid(
                "Expected one of : ~ > < >= <= after \(name) at character \(scanner.position + 1) of the query."
            )
        }
        let value = try self.value(&scanner, field: name, kind: kind, comparison: comparison)
        return SearchClause(negated: negated, field: name, key: key, comparison: comparison, value: value)
    }

    private func value(
        _ scanner: inout Scanner, field: String, kind: SearchFieldKind, comparison: SearchClause.Comparison
    ) throws -> SearchClause.Value {
        switch (kind, comparison) {
        case (.string, .matches), (.string, .contains), (.token, .matches), (.numeric, .matches): break
        case (.numeric, _) where comparison != .contains: break
        default:
            throw Self.invalid("The operator \(comparison.rawValue) cannot be used on \(field), \(kind.name).")
        }
        if let quoted = try scanner.quoted() {
            if kind == .numeric { return .number(try number(quoted, field: field)) }
            if comparison == .contains, quoted.count < Self.minimumSubstringLength {
                throw Self.invalid(
                    "A substring search (~) needs at least \(Self.minimumSubstringLength) characters: \(field)~'\(quoted)'."
                )
            }
            return .text(quoted)
        }
        let bare = scanner.bareWord()
        guard !bare.isEmpty else { throw Self.invalid("Expected a value after \(field)\(comparison.rawValue).") }
        if bare.lowercased() == "null" {
            guard comparison == .matches else { throw Self.invalid("null can only be used with ':' (\(field):null).") }
            return .null
        }
        guard kind == .numeric else {
            throw Self.invalid("String values must be quoted: \(field)\(comparison.rawValue)'\(bare)'.")
        }
        return .number(try number(bare, field: field))
    }

    private func number(_ text: String, field: String) throws -> Int {
        guard let number = Int(text) else {
            throw Self.invalid("\(field) is compared with a whole number (a Unix timestamp), not '\(text)'.")
        }
        return number
    }

    static func invalid(_ message: String) -> PurseError {
        PurseError.invalidParameter("query", message)
    }

    /// A position in the query's characters.
    struct Scanner {
        let characters: [Character]
        private(set) var position = 0

        init(_ characters: [Character]) {
            self.characters = characters
        }

        var isAtEnd: Bool { position >= characters.count }
        private var current: Character? { isAtEnd ? nil : characters[position] }

        @discardableResult
        mutating func skipSpaces() -> Int {
            let start = position
            while let character = current, character.isWhitespace { position += 1 }
            return position - start
        }

        mutating func take(_ character: Character) -> Bool {
            guard current == character else { return false }
            position += 1
            return true
        }

        /// `AND` or `OR` (any case) followed by a space, consumed with the spaces after it.
        mutating func keyword() -> SearchQuery.Connective? {
            for (word, connective) in [("and", SearchQuery.Connective.and), ("or", .or)] {
                let end = position + word.count
                guard end < characters.count, String(characters[position..<end]).lowercased() == word,
                    characters[end].isWhitespace
                else { continue }
                position = end
                skipSpaces()
                return connective
            }
            return nil
        }

        mutating func identifier() -> String {
            let start = position
            while let character = current, character.isASCII,
                character.isLetter || character.isNumber || character == "_"
                    || character == "."
            {
                position += 1
            }
            return String(characters[start..<position])
        }

        mutating func comparison() -> SearchClause.Comparison? {
            for comparison in [SearchClause.Comparison.greaterThanOrEqual, .lessThanOrEqual, .matches, .contains, .greaterThan, .lessThan] {
                let symbol = Array(comparison.rawValue)
                let end = position + symbol.count
                if end <= characters.count, Array(characters[position..<end]) == symbol {
                    position = end
                    return comparison
                }
            }
            return nil
        }

        /// A value in `'` or `"`, nil when none starts here.
        mutating func quoted() throws -> String? {
            guard let quote = current, quote == "'" || quote == "\"" else { return nil }
            let start = position
            position += 1
            var text = ""
            while let character = current {
                position += 1
                if character == quote { return text }
                if character == "\\", let escaped = current {
                    position += 1
                    text.append(escaped)
                } else {
                    text.append(character)
                }
            }
            throw SearchQueryParser.invalid("The string starting at character \(start + 1) of the query is not closed.")
        }

        /// An unquoted value: up to the next space.
        mutating func bareWord() -> String {
            let start = position
            while let character = current, !character.isWhitespace { position += 1 }
            return String(characters[start..<position])
        }
    }
}
