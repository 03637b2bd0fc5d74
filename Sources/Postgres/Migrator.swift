/// Applies numbered migrations in order, each in its own transaction, recording each in
/// `schema_migrations`.
///
/// A session-level advisory lock makes concurrent runners (two servers starting at once) take
/// turns: the second finds the work done.
public struct Migrator: Sendable {
    public let migrations: [Migration]

    /// The advisory-lock key, the same in every process ("purse" in ASCII).
    static let lockKey = 0x7075_7273_65

    public init(migrations: [Migration]) throws {
        let sorted = migrations.sorted { $0.version < $1.version }
        for (previous, next) in zip(sorted, sorted.dropFirst()) where previous.version == next.version {
            throw PGError(.invalidConfiguration, message: "Two migrations have version \(next.version)")
        }
        self.migrations = sorted
    }

    /// Where a database stands against the migrations this binary knows.
    public struct Status: Sendable, Equatable {
        public var applied: [Int]
        public var pending: [Int]
        /// Versions recorded in the database that this binary does not know (a newer binary ran).
        public var unknown: [Int]

        public var isCurrent: Bool { pending.isEmpty }
    }

    /// Applies every pending migration and returns the versions it applied.
    @discardableResult
    public func migrate(_ client: PostgresClient) async throws -> [Int] {
        let migrations = self.migrations
        return try await client.withConnection { connection in
            try await connection.query("SELECT pg_advisory_lock(\(Self.lockKey))")
            // The lock is the session's: released whatever happened (a lost connection frees it too).
            do {
                let applied = try await Self.apply(migrations, on: connection)
                _ = try? await connection.query("SELECT pg_advisory_unlock(\(Self.lockKey))")
                return applied
            } catch {
                _ = try? await connection.query("SELECT pg_advisory_unlock(\(Self.lockKey))")
                throw error
            }
        }
    }

    private static func apply(_ migrations: [Migration], on connection: PostgresConnection) async throws -> [Int] {
        try await createVersionTable(connection)
        let applied = try await Set(appliedVersions(connection))
        var newlyApplied: [Int] = []
        for migration in migrations where !applied.contains(migration.version) {
            try await connection.simpleQuery("BEGIN")
            do {
                try await connection.simpleQuery(migration.sql)
                try await connection.query(
                    "INSERT INTO schema_migrations (version, name) VALUES (\(migration.version), \(migration.name))"
                )
                try await connection.simpleQuery("COMMIT")
            } catch {
                try? await connection.simpleQuery("ROLLBACK")
                throw MigrationError(version: migration.version, name: migration.name, underlying: error)
            }
            newlyApplied.append(migration.version)
        }
        return newlyApplied
    }

    /// Compares the database with the known migrations, changing nothing.
    public func status(_ client: PostgresClient) async throws -> Status {
        let known = migrations.map(\.version)
        return try await client.withConnection { connection in
            let exists = try await connection.query("SELECT to_regclass('schema_migrations') IS NOT NULL AS present")
            let applied = try exists[0]["present", as: Bool.self] ? await Self.appliedVersions(connection) : []
            let appliedSet = Set(applied)
            let knownSet = Set(known)
            return Status(
                applied: applied,
                pending: known.filter { !appliedSet.contains($0) },
                unknown: applied.filter { !knownSet.contains($0) }
            )
        }
    }

    private static func createVersionTable(_ connection: PostgresConnection) async throws {
        try await connection.simpleQuery(
            """
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version integer PRIMARY KEY,
                name text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """
        )
    }

    private static func appliedVersions(_ connection: PostgresConnection) async throws -> [Int] {
        try await connection.query("SELECT version FROM schema_migrations ORDER BY version").map {
            try $0["version", as: Int.self]
        }
    }
}

/// A migration that failed; nothing of it was applied.
public struct MigrationError: Error, CustomStringConvertible {
    public let version: Int
    public let name: String
    public let underlying: any Error

    public var description: String { "Migration \(version) (\(name)) failed: \(underlying)" }
}
