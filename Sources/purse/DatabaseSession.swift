import Foundation
import Logging
import Postgres
import PurseCore
import PursePostgres

/// A short-lived connection pool for the administrative subcommands. The local default's
/// database is migrated first (it is Purse's own); any other must already be current.
struct DatabaseSession {
    let workspace: Workspace
    let pool: PostgresClient

    static func run<Result: Sendable>(
        _ storage: PurseConfiguration.Storage,
        _ body: (DatabaseSession) async throws -> Result
    ) async throws -> Result {
        let logger = Logger(label: "purse")
        let workspace = try await Workspace.open(storage, logger: logger)
        defer { workspace.close(logger: logger) }
        let pool = PostgresClient(configuration: workspace.database, options: .init(maxConnections: 2))
        do {
            let migrator = try Schema.migrator()
            if workspace.localCluster != nil {
                try await migrator.migrate(pool)
            } else {
                let status = try await migrator.status(pool)
                guard status.isCurrent else {
                    throw CommandError("The database schema is behind (pending migrations \(status.pending)); run `purse migrate` first.")
                }
            }
            let result = try await body(DatabaseSession(workspace: workspace, pool: pool))
            await pool.close()
            return result
        } catch {
            await pool.close()
            throw error
        }
    }
}

/// Printing for scripts.
enum Output {
    /// Writes `value` as one line of JSON on standard output.
    static func json(_ value: Any) {
        guard let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]) else { return }
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }
}
