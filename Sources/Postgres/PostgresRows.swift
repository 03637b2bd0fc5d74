/// The rows a statement returned, copied out of libpq before the call returned.
///
/// Values are kept in PostgreSQL's binary format in one buffer; a ``PostgresRow`` is a view into
/// it and decodes a column only when asked.
public struct PostgresRows: Sendable, RandomAccessCollection {
    /// Column names and types, shared by every row.
    public let columns: [Column]
    /// The count of rows the statement changed (`INSERT`, `UPDATE`, `DELETE`), or returned.
    public let affectedRows: Int
    let storage: Storage

    public struct Column: Sendable {
        public let name: String
        public let type: PostgresType
    }

    /// Cells row by row: `ranges[row * columns.count + column]`, nil for NULL.
    final class Storage: Sendable {
        let bytes: [UInt8]
        let ranges: [Range<Int>?]

        init(bytes: [UInt8], ranges: [Range<Int>?]) {
            self.bytes = bytes
            self.ranges = ranges
        }
    }

    init(columns: [Column], affectedRows: Int, bytes: [UInt8], ranges: [Range<Int>?]) {
        self.columns = columns
        self.affectedRows = affectedRows
        self.storage = Storage(bytes: bytes, ranges: ranges)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { columns.isEmpty ? 0 : storage.ranges.count / columns.count }

    public subscript(position: Int) -> PostgresRow {
        PostgresRow(rows: self, index: position)
    }

    func columnIndex(named name: String) -> Int? {
        columns.firstIndex { $0.name == name }
    }
}

/// One row of ``PostgresRows``.
public struct PostgresRow: Sendable {
    let rows: PostgresRows
    let index: Int

    /// Reads column `column` (0-based) as `Value`.
    public func decode<Value: PostgresDecodable>(_: Value.Type = Value.self, at column: Int) throws -> Value {
        let columns = rows.columns
        guard column >= 0, column < columns.count else {
            throw PGError(.decoding, message: "The result has no column \(column)")
        }
        let cell = PostgresCell(
            column: columns[column],
            storage: rows.storage,
            range: rows.storage.ranges[index * columns.count + column]
        )
        return try Value(postgresCell: cell)
    }

    /// The UTF-8 bytes of a text-like, `json` or `jsonb` column as stored in the result, without
    /// making a `String` of them (nil for NULL): for writing them straight into a response.
    public func utf8Text(at column: Int) throws -> ArraySlice<UInt8>? {
        let columns = rows.columns
        guard column >= 0, column < columns.count else {
            throw PGError(.decoding, message: "The result has no column \(column)")
        }
        guard let range = rows.storage.ranges[index * columns.count + column] else { return nil }
        let bytes = rows.storage.bytes[range]
        switch columns[column].type {
        case let type where type.isTextLike || type == .json:
            return bytes
        case .jsonb where bytes.first == 1:
            // Binary jsonb is a version byte (1) followed by the JSON text.
            return bytes.dropFirst()
        default:
            throw PGError(.decoding, message: "Column '\(columns[column].name)' (\(columns[column].type)) is not text")
        }
    }

    /// Reads the column named `name` as `Value`.
    public func decode<Value: PostgresDecodable>(_: Value.Type = Value.self, named name: String) throws -> Value {
        guard let column = rows.columnIndex(named: name) else {
            throw PGError(.decoding, message: "The result has no column named '\(name)'")
        }
        return try decode(Value.self, at: column)
    }

    /// Reads the column named `name` as `Value`: `row["email", as: String?.self]`.
    public subscript<Value: PostgresDecodable>(name: String, as _: Value.Type = Value.self) -> Value {
        get throws { try decode(Value.self, named: name) }
    }
}

/// One value as PostgreSQL sent it: its column, and its bytes in binary format (nil for NULL).
public struct PostgresCell: Sendable {
    public let column: PostgresRows.Column
    let storage: PostgresRows.Storage
    let range: Range<Int>?

    public var isNull: Bool { range == nil }

    /// The bytes of a non-NULL value.
    public var bytes: ArraySlice<UInt8> {
        guard let range else { return [] }
        return storage.bytes[range]
    }

    /// An error saying this column cannot be read as `type`.
    public func mismatch(_ type: Any.Type) -> PGError {
        PGError(
            .decoding,
            message: "Column '\(column.name)' (\(column.type)\(isNull ? ", NULL" : "")) cannot be read as \(type)"
        )
    }
}
