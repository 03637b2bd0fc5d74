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
            // A fragment without binds has no placeholders to shift: a constant clause is
            // copied, not scanned, on every statement that embeds it.
            sql += offset == 0 || fragment.binds.isEmpty ? fragment.sql : Self.renumber(fragment.sql, by: offset)
        }

        /// SQL text inserted as it is. Only for identifiers and keywords the code chooses, never
        /// for anything that came from a request.
        public mutating func appendInterpolation(unsafeSQL text: String) {
            sql += text
        }

        /// Shifts every `$n` placeholder by `offset`, and nothing that only looks like one: text
        /// inside quotes (`'...'`, `E'...'` with backslash escapes, `"..."`), dollar quotes
        /// (`$$...$$`, `$tag$...$tag$`) and comments (`-- ...`, nested `/* ... */`) is copied as
        /// it is. Works on UTF-8 bytes: every delimiter is ASCII, and a byte of a multi-byte
        /// character is never one of them.
        static func renumber(_ sql: String, by offset: Int) -> String {
            var sql = sql
            return sql.withUTF8 { text in
                var scanner = PlaceholderScanner(text: text, offset: offset)
                scanner.run()
                return String(decoding: scanner.result, as: UTF8.self)
            }
        }
    }
}

/// Walks SQL text for ``PostgresQuery/StringInterpolation/renumber(_:by:)``.
private struct PlaceholderScanner {
    let text: UnsafeBufferPointer<UInt8>
    let offset: Int
    var index = 0
    var result: [UInt8] = []

    init(text: UnsafeBufferPointer<UInt8>, offset: Int) {
        self.text = text
        self.offset = offset
        result.reserveCapacity(text.count + 16)
    }

    private static let dollar = UInt8(ascii: "$"), single = UInt8(ascii: "'"), double = UInt8(ascii: "\"")
    private static let dash = UInt8(ascii: "-"), slash = UInt8(ascii: "/"), star = UInt8(ascii: "*")
    private static let backslash = UInt8(ascii: "\\"), newline = UInt8(ascii: "\n")

    mutating func run() {
        while index < text.count {
            let byte = text[index]
            switch byte {
            case Self.single:
                copyQuoted(until: Self.single, backslashEscapes: opensEscapeString())
            case Self.double:
                copyQuoted(until: Self.double, backslashEscapes: false)
            case Self.dash where peek(1) == Self.dash:
                copy(while: { $0 != Self.newline })
            case Self.slash where peek(1) == Self.star:
                copyBlockComment()
            case Self.dollar where index > 0 && Self.isIdentifierByte(text[index - 1]):
                copyByte()  // part of an identifier such as `a$1`
            case Self.dollar:
                if let number = placeholderNumber() {
                    result.append(Self.dollar)
                    result.append(contentsOf: String(number + offset).utf8)
                } else if let tag = dollarQuoteTag() {
                    copyDollarQuoted(tag)
                } else {
                    copyByte()
                }
            default:
                copyByte()
            }
        }
    }

    private func peek(_ ahead: Int) -> UInt8? {
        index + ahead < text.count ? text[index + ahead] : nil
    }

    private mutating func copyByte() {
        result.append(text[index])
        index += 1
    }

    private mutating func copy(while condition: (UInt8) -> Bool) {
        while index < text.count, condition(text[index]) { copyByte() }
    }

    /// `E'...'`: the quote follows an `E` that is not the end of a longer word.
    private func opensEscapeString() -> Bool {
        guard index >= 1, text[index - 1] | 0x20 == UInt8(ascii: "e") else { return false }
        return index < 2 || !Self.isIdentifierByte(text[index - 2])
    }

    /// A quoted string or identifier; a doubled closing quote is part of it.
    private mutating func copyQuoted(until quote: UInt8, backslashEscapes: Bool) {
        copyByte()
        while index < text.count {
            let byte = text[index]
            if backslashEscapes, byte == Self.backslash {
                copyByte()
                if index < text.count { copyByte() }
            } else if byte == quote {
                copyByte()
                if peek(0) == quote { copyByte() } else { return }
            } else {
                copyByte()
            }
        }
    }

    /// `/* ... */`, which PostgreSQL lets nest.
    private mutating func copyBlockComment() {
        var depth = 0
        while index < text.count {
            if text[index] == Self.slash, peek(1) == Self.star {
                depth += 1
                copyByte()
                copyByte()
            } else if text[index] == Self.star, peek(1) == Self.slash {
                depth -= 1
                copyByte()
                copyByte()
                if depth == 0 { return }
            } else {
                copyByte()
            }
        }
    }

    /// The number of a `$n` at `index`, consuming it; nil when none starts there.
    private mutating func placeholderNumber() -> Int? {
        guard let first = peek(1), Self.isDigit(first) else { return nil }
        var number = 0
        index += 1
        while index < text.count, Self.isDigit(text[index]) {
            number = number * 10 + Int(text[index] - UInt8(ascii: "0"))
            index += 1
        }
        return number
    }

    /// The tag of a dollar quote opening at `index` (`$$` or `$tag$`, the tag an identifier that
    /// does not start with a digit), including both dollars.
    private func dollarQuoteTag() -> [UInt8]? {
        var end = index + 1
        while end < text.count, text[end] != Self.dollar {
            guard Self.isIdentifierByte(text[end]), !(end == index + 1 && Self.isDigit(text[end])) else { return nil }
            end += 1
        }
        guard end < text.count else { return nil }
        return Array(text[index...end])
    }

    private mutating func copyDollarQuoted(_ tag: [UInt8]) {
        result.append(contentsOf: tag)
        index += tag.count
        while index < text.count {
            if text[index] == Self.dollar, index + tag.count <= text.count, text[index..<(index + tag.count)].elementsEqual(tag) {
                result.append(contentsOf: tag)
                index += tag.count
                return
            }
            copyByte()
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    /// Letters, digits, `_`, and any byte of a multi-byte character (PostgreSQL's identifiers).
    private static func isIdentifierByte(_ byte: UInt8) -> Bool {
        isDigit(byte) || byte == UInt8(ascii: "_") || byte >= 0x80 || ((byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z"))
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
