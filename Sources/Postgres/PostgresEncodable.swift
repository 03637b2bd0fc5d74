public import Foundation

/// A Swift value that can be bound as a query parameter.
public protocol PostgresEncodable: Sendable {
    /// The type OID the value is bound as.
    static var postgresType: PostgresType { get }
    var postgresBind: PostgresBind { get }
}

extension String: PostgresEncodable {
    public static var postgresType: PostgresType { .text }
    public var postgresBind: PostgresBind { PostgresBind(type: .text, format: .text, bytes: Array(utf8)) }
}

extension Int: PostgresEncodable {
    public static var postgresType: PostgresType { .int8 }
    public var postgresBind: PostgresBind {
        PostgresBind(type: .int8, format: .text, bytes: Array(String(self).utf8))
    }
}

extension Int32: PostgresEncodable {
    public static var postgresType: PostgresType { .int4 }
    public var postgresBind: PostgresBind {
        PostgresBind(type: .int4, format: .text, bytes: Array(String(self).utf8))
    }
}

extension Bool: PostgresEncodable {
    public static var postgresType: PostgresType { .bool }
    public var postgresBind: PostgresBind {
        PostgresBind(type: .bool, format: .text, bytes: self ? [UInt8(ascii: "t")] : [UInt8(ascii: "f")])
    }
}

/// Bytes bind as `bytea`, sent in binary so they need no escaping.
extension Array: PostgresEncodable where Element == UInt8 {
    public static var postgresType: PostgresType { .bytea }
    public var postgresBind: PostgresBind { PostgresBind(type: .bytea, format: .binary, bytes: self) }
}

/// Dates bind as `timestamptz`, in binary: microseconds since 2000-01-01 UTC, big-endian.
extension Date: PostgresEncodable {
    public static var postgresType: PostgresType { .timestamptz }
    public var postgresBind: PostgresBind {
        let microseconds = Int64(((timeIntervalSince1970 - PostgresEpoch.unixOffset) * 1_000_000).rounded())
        return PostgresBind(type: .timestamptz, format: .binary, bytes: BigEndian.bytes(of: microseconds))
    }
}

/// A JSON document (the text must already be valid JSON), bound as `jsonb`, or as `json` when
/// its text must be kept as it is (key order included).
public struct PostgresJSON: PostgresEncodable, Hashable {
    public var text: String
    /// `.jsonb` or `.json`.
    public var type: PostgresType

    public init(_ text: String, type: PostgresType = .jsonb) {
        self.text = text
        self.type = type
    }

    public static var postgresType: PostgresType { .jsonb }
    public var postgresBind: PostgresBind { PostgresBind(type: type, format: .text, bytes: Array(text.utf8)) }
}

/// `[String]` binds as `text[]`, written as an array literal with every element quoted.
public struct PostgresTextArray: PostgresEncodable, Hashable {
    public var elements: [String]

    public init(_ elements: [String]) { self.elements = elements }

    public static var postgresType: PostgresType { .textArray }
    public var postgresBind: PostgresBind {
        var literal = "{"
        for (index, element) in elements.enumerated() {
            if index > 0 { literal += "," }
            literal += "\""
            for character in element {
                if character == "\"" || character == "\\" { literal.append("\\") }
                literal.append(character)
            }
            literal += "\""
        }
        literal += "}"
        return PostgresBind(type: .textArray, format: .text, bytes: Array(literal.utf8))
    }
}

enum PostgresEpoch {
    /// Seconds from 1970-01-01 to 2000-01-01, PostgreSQL's timestamp epoch.
    static let unixOffset: TimeInterval = 946_684_800
}

enum BigEndian {
    static func bytes(of value: Int64) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }
}
