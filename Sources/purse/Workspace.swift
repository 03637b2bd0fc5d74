import Foundation
import LocalPostgres
import Logging
import Postgres
import PurseCore

/// What a subcommand works with: the data folder, the master key, and the database, which is
/// either the one configured or the local default cluster in the data folder.
struct Workspace {
    let dataDirectory: URL
    let masterKey: MasterKey
    let database: PostgresConfiguration
    /// The local default cluster, when no database URL was given.
    let localCluster: LocalCluster?
    /// Whether this process started `localCluster`, and so stops it at the end.
    private let startedLocalCluster: Bool

    /// The database the local default keeps Purse's data in.
    static let localDatabaseName = "purse"

    static func open(_ storage: PurseConfiguration.Storage, logger: Logger) async throws -> Workspace {
        let dataDirectory = storage.dataDirectory
        let masterKey = try MasterKeyFile.load(storage, logger: logger)
        if let url = storage.databaseURL {
            return Workspace(
                dataDirectory: dataDirectory, masterKey: masterKey,
                database: try PostgresConfiguration(connectionString: url), localCluster: nil, startedLocalCluster: false
            )
        }
        let cluster = LocalCluster(directory: dataDirectory.appendingPathComponent("postgres"))
        if try cluster.initializeIfNeeded() {
            logger.info("Created a PostgreSQL cluster in \(cluster.directory.path)")
        }
        let started = !cluster.isRunning
        if started {
            try cluster.start()
            let port = try cluster.port()
            logger.info("Started the local PostgreSQL in \(cluster.directory.path) on 127.0.0.1:\(port)")
        }
        do {
            try await createLocalDatabaseIfNeeded(cluster)
        } catch {
            if started { try? cluster.stop() }
            throw error
        }
        return Workspace(
            dataDirectory: dataDirectory, masterKey: masterKey,
            database: try cluster.configuration(database: localDatabaseName),
            localCluster: cluster, startedLocalCluster: started
        )
    }

    /// Stops the local cluster if this process started it.
    func close(logger: Logger) {
        guard startedLocalCluster, let localCluster else { return }
        do {
            try localCluster.stop()
            logger.info("Stopped the local PostgreSQL")
        } catch {
            logger.error("Could not stop the local PostgreSQL: \(error)")
        }
    }

    private static func createLocalDatabaseIfNeeded(_ cluster: LocalCluster) async throws {
        let connection = try await PostgresConnection.connect(configuration: try cluster.configuration(database: "postgres"))
        try await createLocalDatabaseIfNeeded(on: connection)
    }

    private static func createLocalDatabaseIfNeeded(on connection: PostgresConnection) async throws {
        defer { connection.close() }
        let existing = try await connection.query("SELECT 1 FROM pg_database WHERE datname = \(localDatabaseName)")
        if existing.isEmpty {
            try await connection.simpleQuery("CREATE DATABASE \(localDatabaseName)")
        }
    }
}
