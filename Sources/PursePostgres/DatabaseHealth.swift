public import Postgres

/// Whether the database can serve requests: reachable, with the schema this binary expects, and
/// committing writes.
public struct DatabaseHealth: Sendable {
    public enum Readiness: Sendable, Equatable {
        case ready
        case unreachable
        case schemaBehind(pending: [Int])
        /// Reached a server that takes no writes: a standby, after a failover moved the primary
        /// away from the host this instance was given.
        case readOnly
        /// A write did not commit within ``writeProbeLimit``: a synchronous standby is away, or
        /// the database is too busy to take one.
        case writesNotCommitting
    }

    private let pool: PostgresClient
    private let migrator: Migrator
    /// How long the write probe may take before the database counts as not committing writes.
    public let writeProbeLimit: Duration

    public init(pool: PostgresClient, writeProbeLimit: Duration = .seconds(2)) throws {
        self.pool = pool
        self.migrator = try Schema.migrator()
        self.writeProbeLimit = writeProbeLimit
    }

    public func readiness() async -> Readiness {
        let status: Migrator.Status
        do {
            status = try await migrator.status(pool)
        } catch {
            return .unreachable
        }
        guard status.isCurrent else { return .schemaBehind(pending: status.pending) }
        return await probeWrites()
    }

    /// A write that touches no table (``PostgresConnection/queueCommitMarker(_:)``) commits as
    /// every write does, waiting for the synchronous standbys. A standby, or a session that may
    /// not write, is read-only before anything is tried.
    /// Past the limit the probe is cancelled, which ends a wait for a standby.
    private func probeWrites() async -> Readiness {
        let (pool, limit) = (self.pool, writeProbeLimit)
        do {
            return try await withThrowingTaskGroup(of: Readiness.self) { group in
                group.addTask {
                    try await pool.withTransaction { connection in
                        let mode = try await connection.query(
                            "SELECT pg_is_in_recovery() OR current_setting('transaction_read_only') = 'on' AS read_only"
                        )
                        if try mode[0]["read_only", as: Bool.self] { return .readOnly }
                        try connection.queueCommitMarker("readiness probe")
                        return .ready
                    }
                }
                group.addTask {
                    try await Task.sleep(for: limit)
                    return .writesNotCommitting
                }
                defer { group.cancelAll() }
                return try await group.next() ?? .writesNotCommitting
            }
        } catch let error as PGError where error.kind == .commitOutcomeUnknown {
            return .writesNotCommitting
        } catch {
            return .unreachable
        }
    }
}
