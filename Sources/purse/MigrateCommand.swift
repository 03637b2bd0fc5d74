import ArgumentParser
import Logging
import Postgres
import PurseCore
import PursePostgres

/// `purse migrate`: brings the database to the schema this binary knows.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply pending schema migrations."
    )

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let logger = Logger(label: "purse")
        let workspace = try await Workspace.open(PurseConfiguration.readStorage(database), logger: logger)
        defer { workspace.close(logger: logger) }
        let client = PostgresClient(configuration: workspace.database, options: .init(maxConnections: 1))
        do {
            let migrator = try Schema.migrator()
            let applied = try await migrator.migrate(client)
            let status = try await migrator.status(client)
            await client.close()
            print(
                applied.isEmpty
                    ? "The schema is current (version \(status.applied.last ?? 0))."
                    : "Applied \(applied.count) migration(s); the schema is at version \(status.applied.last ?? 0).")
        } catch {
            await client.close()
            throw error
        }
    }
}
