/// A SQL statement whose values always travel as `$n` parameters.
///
/// Built by string interpolation: `"SELECT * FROM customers WHERE id = \(id)"` becomes the text
/// `SELECT * FROM customers WHERE id = $1` plus one bind, so a value can never change the
/// statement. SQL text that is not a literal has to be spelled `\(unsafeSQL: ...)`, which says
/// at the call site that the caller vouches for it.
public struct PostgresQuery: Sendable, ExpressibleByStringInterpolation {
    public private(set) var sql: String
    public private(set) var binds: [PostgresBind]

    public init(stringLiteral value: String) {
        sql = value
        binds = []
    }

    public init(stringInterpolation: StringInterpolation) {
        sql = stringInterpolation.sql
        binds = stringInterpolation.binds
    }

    /// A statement from text the caller vouches for, with its binds given separately.
    public init(unsafeSQL sql: String, binds: [PostgresBind] = []) {
        self.sql = sql
        self.binds = binds
    }

    /// Appends another query, renumbering its placeholders after ours.
    public mutating func append(_ other: PostgresQuery) {
        var interpolation = StringInterpolation(literalCapacity: 0, interpolationCount: 0)
        interpolation.sql = sql
        interpolation.binds = binds
        interpolation.appendInterpolation(other)
        sql = interpolation.sql
        binds = interpolation.binds
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        fileprivate var sql: String
        fileprivate var binds: [PostgresBind]

        public init(literalCapacity: Int, interpolationCount: Int) {
            sql = ""
            sql.reserveCapacity(literalCapacity + interpolationCount * 3)
            binds = []
            binds.reserveCapacity(interpolationCount)
        }

        public mutating func appendLiteral(_ literal: String) {
            sql += literal
        }

        /// A value, bound as the next `$n`.
        public mutating func appendInterpolation(_ value: some PostgresEncodable) {
            binds.append(value.postgresBind)
            sql += "$\(binds.count)"
        }

        /// An optional value: `nil` binds NULL.
        public mutating func appendInterpolation<Value: PostgresEncodable>(_ value: Value?) {
            binds.append(value?.postgresBind ?? .null(type: Value.postgresType))
            sql += "$\(binds.count)"
        }

        /// A ready-made bind.
        public mutating func appendInterpolation(_ bind: PostgresBind) {
            binds.append(bind)
            sql += "$\(binds.count)"
        }

        /// A fragment built the same way; its placeholders are renumbered after ours.
        public mutating func appendInterpolation(_ fragment: PostgresQuery) {
            let offset = binds.count
            binds += fragment.binds
            sql += offset == 0 ? fragment.sql : Self.renumber(fragment.sql, by: offset)
        }

        /// SQL text inserted as it is. Only for identifiers and keywords the code chooses, never
        /// for anything that came from a request.
        public mutating func appendInterpolation(unsafeSQL text: String) {
            sql += text
        }

        /// Shifts every `$n` outside quotes by `offset`.
        private static func renumber(_ sql: String, by offset: Int) -> String {
            var result = ""
            result.reserveCapacity(sql.utf8.count + 8)
            var quote: Character?
            var iterator = sql.makeIterator()
            var pending: Character? = iterator.next()
            while let character = pending {
                pending = iterator.next()
                if let open = quote {
                    result.append(character)
                    if character == open { quote = nil }
                    continue
                }
                if character == "'" || character == "\"" {
                    quote = character
                    result.append(character)
                    continue
                }
                guard character == "$", let next = pending, next.isASCII, next.isNumber else {
                    result.append(character)
                    continue
                }
                var digits = ""
                while let digit = pending, digit.isASCII, digit.isNumber {
                    digits.append(digit)
                    pending = iterator.next()
                }
                result += "$\(Int(digits)! + offset)"
            }
            return result
        }
    }
}

/// One parameter value as libpq receives it: a type OID, a format and the bytes (nil is NULL).
public struct PostgresBind: Sendable {
    public enum Format: Int32, Sendable {
        case text = 0
        case binary = 1
    }

    public var type: PostgresType
    public var format: Format
    public var bytes: [UInt8]?

    public init(type: PostgresType, format: Format, bytes: [UInt8]?) {
        self.type = type
        self.format = format
        self.bytes = bytes
    }

    public static func null(type: PostgresType) -> PostgresBind {
        PostgresBind(type: type, format: .text, bytes: nil)
    }
}
