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

        /// Shifts every `$n` outside quotes by `offset`. Works on UTF-8 bytes: quotes, `$` and
        /// digits are ASCII, and a byte of a multi-byte character is never one of them.
        private static func renumber(_ sql: String, by offset: Int) -> String {
            let dollar = UInt8(ascii: "$"), single = UInt8(ascii: "'"), double = UInt8(ascii: "\"")
            let zero = UInt8(ascii: "0"), nine = UInt8(ascii: "9")
            var sql = sql
            return sql.withUTF8 { text in
                var result: [UInt8] = []
                result.reserveCapacity(text.count + 16)
                var quote: UInt8?
                var index = 0
                while index < text.count {
                    let byte = text[index]
                    index += 1
                    if let open = quote {
                        if byte == open { quote = nil }
                        result.append(byte)
                    } else if byte == single || byte == double {
                        quote = byte
                        result.append(byte)
                    } else if byte == dollar, index < text.count, (zero...nine).contains(text[index]) {
                        var number = 0
                        while index < text.count, (zero...nine).contains(text[index]) {
                            number = number * 10 + Int(text[index] - zero)
                            index += 1
                        }
                        result.append(dollar)
                        result.append(contentsOf: String(number + offset).utf8)
                    } else {
                        result.append(byte)
                    }
                }
                return String(decoding: result, as: UTF8.self)
            }
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
