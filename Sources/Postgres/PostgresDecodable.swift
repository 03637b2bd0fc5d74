public import Foundation

/// A Swift type a column can be read as. Results arrive in PostgreSQL's binary format.
public protocol PostgresDecodable: Sendable {
    init(postgresCell cell: PostgresCell) throws
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    public init(postgresCell cell: PostgresCell) throws {
        self = cell.isNull ? nil : try Wrapped(postgresCell: cell)
    }
}

extension String: PostgresDecodable {
    public init(postgresCell cell: PostgresCell) throws {
        guard !cell.isNull else { throw cell.mismatch(String.self) }
        var bytes = cell.bytes
        switch cell.column.type {
        case let type where type.isTextLike || type == .json:
            break
        case .jsonb:
            // Binary jsonb is a version byte (1) followed by the JSON text.
            guard bytes.first == 1 else { throw cell.mismatch(String.self) }
            bytes = bytes.dropFirst()
        default:
            throw cell.mismatch(String.self)
        }
        self = String(decoding: bytes, as: UTF8.self)
    }
}

extension Int: PostgresDecodable {
    public init(postgresCell cell: PostgresCell) throws {
        guard !cell.isNull, let value = NetworkInteger.read(cell) else { throw cell.mismatch(Int.self) }
        self = Int(value)
    }
}

extension Int32: PostgresDecodable {
    public init(postgresCell cell: PostgresCell) throws {
        guard !cell.isNull, let value = NetworkInteger.read(cell), let narrow = Int32(exactly: value) else {
            throw cell.mismatch(Int32.self)
        }
        self = narrow
    }
}

extension Bool: PostgresDecodable {
    public init(postgresCell cell: PostgresCell) throws {
        guard !cell.isNull, cell.column.type == .bool, cell.bytes.count == 1 else { throw cell.mismatch(Bool.self) }
        self = cell.bytes.first != 0
    }
}

extension Double: PostgresDecodable {
    public init(postgresCell cell: PostgresCell) throws {
        guard !cell.isNull else { throw cell.mismatch(Double.self) }
        switch (cell.column.type, cell.bytes.count) {
        case (.float8, 8):
            self = Double(bitPattern: UInt64(NetworkInteger.bigEndian(cell.bytes)))
        case (.float4, 4):
            self = Double(Float(bitPattern: UInt32(NetworkInteger.bigEndian(cell.bytes))))
        default:
            if let integer = NetworkInteger.read(cell) { self = Double(integer) } else { throw cell.mismatch(Double.self) }
        }
    }
}

extension Array: PostgresDecodable where Element == UInt8 {
    public init(postgresCell cell: PostgresCell) throws {
        guard !cell.isNull, cell.column.type == .bytea else { throw cell.mismatch([UInt8].self) }
        self = Array(cell.bytes)
    }
}

extension Date: PostgresDecodable {
    public init(postgresCell cell: PostgresCell) throws {
        guard !cell.isNull, cell.column.type == .timestamptz || cell.column.type == .timestamp,
            cell.bytes.count == 8
        else { throw cell.mismatch(Date.self) }
        let microseconds = NetworkInteger.bigEndian(cell.bytes)
        self = Date(timeIntervalSince1970: PostgresEpoch.unixOffset + TimeInterval(microseconds) / 1_000_000)
    }
}

extension PostgresJSON: PostgresDecodable {
    public init(postgresCell cell: PostgresCell) throws {
        guard cell.column.type == .jsonb || cell.column.type == .json else { throw cell.mismatch(PostgresJSON.self) }
        self.init(try String(postgresCell: cell), type: cell.column.type)
    }
}

extension PostgresTextArray: PostgresDecodable {
    /// Reads a one-dimensional `text[]` / `varchar[]` (an empty array has no dimensions).
    public init(postgresCell cell: PostgresCell) throws {
        guard !cell.isNull, cell.column.type == .textArray || cell.column.type == .varcharArray else {
            throw cell.mismatch(PostgresTextArray.self)
        }
        var reader = ByteReader(cell.bytes)
        guard let dimensions = reader.int32(), reader.int32() != nil, reader.int32() != nil else {
            throw cell.mismatch(PostgresTextArray.self)
        }
        guard dimensions <= 1 else { throw cell.mismatch(PostgresTextArray.self) }
        var elements: [String] = []
        if dimensions == 1 {
            guard let count = reader.int32(), reader.int32() != nil, count >= 0 else {
                throw cell.mismatch(PostgresTextArray.self)
            }
            elements.reserveCapacity(Int(count))
            for _ in 0..<count {
                guard let length = reader.int32(), length >= 0, let bytes = reader.bytes(Int(length)) else {
                    throw cell.mismatch(PostgresTextArray.self)  // NULL elements do not fit [String]
                }
                elements.append(String(decoding: bytes, as: UTF8.self))
            }
        }
        self.init(elements)
    }
}

/// Binary integer reading shared by the integer conformances.
enum NetworkInteger {
    /// An int2, int4, int8 or oid column as Int64.
    static func read(_ cell: PostgresCell) -> Int64? {
        let bytes = cell.bytes
        switch (cell.column.type, bytes.count) {
        case (.int8, 8): return bigEndian(bytes)
        case (.int4, 4): return Int64(Int32(truncatingIfNeeded: bigEndian(bytes)))
        case (.int2, 2): return Int64(Int16(truncatingIfNeeded: bigEndian(bytes)))
        case (.oidType, 4): return bigEndian(bytes)
        default: return nil
        }
    }

    static func bigEndian(_ bytes: ArraySlice<UInt8>) -> Int64 {
        var value: UInt64 = 0
        for byte in bytes { value = value << 8 | UInt64(byte) }
        return Int64(bitPattern: value)
    }
}

/// Reads big-endian fields from a binary value.
struct ByteReader {
    private var bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    mutating func int32() -> Int32? {
        guard let field = self.bytes(4) else { return nil }
        return Int32(truncatingIfNeeded: NetworkInteger.bigEndian(field))
    }

    mutating func bytes(_ count: Int) -> ArraySlice<UInt8>? {
        guard count <= bytes.count else { return nil }
        defer { bytes = bytes.dropFirst(count) }
        return bytes.prefix(count)
    }
}
