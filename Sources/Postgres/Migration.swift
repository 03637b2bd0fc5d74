/// One forward-only schema change: a numbered SQL script.
public struct Migration: Sendable, Equatable {
    public let version: Int
    public let name: String
    public let sql: String

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }

    /// Reads the version and name from a file name like `0007_webhooks.sql`.
    public init(fileName: String, sql: String) throws {
        let stem = fileName.hasSuffix(".sql") ? String(fileName.dropLast(4)) : fileName
        let parts = stem.split(separator: "_", maxSplits: 1)
        guard parts.count == 2, let version = Int(parts[0]), version > 0 else {
            throw PGError(.invalidConfiguration, message: "Migration file '\(fileName)' must be named NNNN_name.sql")
        }
        self.init(version: version, name: String(parts[1]), sql: sql)
    }
}
