import Foundation
public import LocalPostgres
import NIOConcurrencyHelpers
public import Postgres

/// The PostgreSQL the tests use: `PURSE_TEST_DATABASE_URL` when set (the test command sets it),
/// otherwise a throwaway cluster started here once per test process and stopped at exit.
public enum TestPostgres {
    /// Connection settings for the shared server's `postgres` database.
    public static func serverConfiguration() throws -> PostgresConfiguration {
        try shared.get()
    }

    private static let shared: Result<PostgresConfiguration, any Error> = {
        let configuration: Result<PostgresConfiguration, any Error>
        if let url = ProcessInfo.processInfo.environment["PURSE_TEST_DATABASE_URL"] {
            configuration = Result { try PostgresConfiguration(connectionString: url) }
        } else {
            configuration = Result {
                let cluster = try makeThrowawayCluster()
                atexit { TestPostgres.stopThrowawayClusters() }
                return try cluster.configuration()
            }
        }
        return configuration.map { configuration in
            var configuration = configuration
            if configuration.value(for: "connect_timeout") == nil { configuration.set("connect_timeout", testConnectTimeout) }
            return configuration
        }
    }()

    /// Seconds a test's connection may take to connect, instead of Purse's 5. The test run is
    /// hundreds of connections on two shared cores: on this kind of machine (2026-11-28) the
    /// hypervisor took 20-50 % of the CPU in bursts and the whole machine stalled for 1.5-5 s
    /// at a time, and a connect made then (SCRAM on both ends, a backend forked) failed with
    /// "timeout expired" in about one run in ten. No test is about that limit.
    static let testConnectTimeout = "30"

    private static let throwawayClusters = NIOLockedValueBox<[LocalCluster]>([])

    /// Starts a private cluster in a new temporary folder (under `PURSE_TEST_ROOT` when set, so
    /// the test command can clean up after a crash). Tests that stop or restart PostgreSQL use
    /// their own so they disturb no one else.
    private static func makeThrowawayCluster(
        serverSettings: [String: String] = [:],
        beforeStart: (LocalCluster) throws -> Void = { _ in }
    ) throws -> LocalCluster {
        let root =
            ProcessInfo.processInfo.environment["PURSE_TEST_ROOT"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory
        let cluster = LocalCluster(
            directory: root.appendingPathComponent("cluster-\(UUID().uuidString.prefix(8))"),
            serverSettings: ["fsync": "off", "synchronous_commit": "off", "full_page_writes": "off", "max_connections": "500"]
                .merging(serverSettings) { $1 }
        )
        do {
            try cluster.initializeIfNeeded()
            try beforeStart(cluster)
            try cluster.start()
        } catch {
            throw TestSetupError(
                "Could not start a throwaway PostgreSQL (\(error)). Install PostgreSQL 15 "
                    + "(apt-get install postgresql libpq-dev) or set PURSE_TEST_DATABASE_URL, "
                    + "or run the README's test command, which does both."
            )
        }
        throwawayClusters.withLockedValue { $0.append(cluster) }
        return cluster
    }

    /// Starts a throwaway cluster without holding a cooperative thread while initdb runs.
    /// `beforeStart` runs once the cluster's folder is made (to put files in its data folder).
    public static func startThrowawayCluster(
        serverSettings: [String: String] = [:],
        beforeStart: @escaping @Sendable (LocalCluster) throws -> Void = { _ in }
    ) async throws -> LocalCluster {
        try await Blocking.run { try makeThrowawayCluster(serverSettings: serverSettings, beforeStart: beforeStart) }
    }

    /// Stops and deletes a throwaway cluster.
    public static func destroy(_ cluster: LocalCluster) {
        try? cluster.stop()
        try? FileManager.default.removeItem(at: cluster.directory)
        throwawayClusters.withLockedValue { $0.removeAll { $0.directory == cluster.directory } }
    }

    static func stopThrowawayClusters() {
        for cluster in throwawayClusters.withLockedValue({ $0 }) { destroy(cluster) }
    }

    /// Creates an empty database with a unique name and returns its settings.
    public static func createDatabase(template: String? = nil) async throws -> (name: String, configuration: PostgresConfiguration) {
        let server = try serverConfiguration()
        let name = "purse_test_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16))"
        let templateClause = template.map { " TEMPLATE \($0)" } ?? ""
        let admin = PostgresClient(configuration: server, options: .init(maxConnections: 1))
        do {
            try await admin.withConnection { try await $0.simpleQuery("CREATE DATABASE \(name)\(templateClause)") }
            await admin.close()
        } catch {
            await admin.close()
            throw error
        }
        var configuration = server
        configuration.set("dbname", name)
        return (name, configuration)
    }

    /// Drops a database made by `createDatabase`, closing whatever is still connected to it.
    public static func dropDatabase(_ name: String) async {
        guard let server = try? serverConfiguration() else { return }
        let admin = PostgresClient(configuration: server, options: .init(maxConnections: 1))
        _ = try? await admin.withConnection { try await $0.simpleQuery("DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }
        await admin.close()
    }

    /// Runs `body` with a new empty database, dropped afterwards even when `body` throws. At
    /// most 32 tests hold one at a time (`DatabaseSlots`).
    public static func withEmptyDatabase<Result>(
        template: String? = nil,
        _ body: (TestDatabase) async throws -> Result
    ) async throws -> Result {
        try await DatabaseSlots.shared.withSlot {
            let created = try await createDatabase(template: template)
            let database = TestDatabase(name: created.name, configuration: created.configuration)
            do {
                let result = try await body(database)
                await dropDatabase(database.name)
                return result
            } catch {
                await dropDatabase(database.name)
                throw error
            }
        }
    }

    /// Runs `body` with a pool on a new empty database, dropped afterwards even when `body` throws.
    public static func withDatabase<Result>(
        options: PostgresClient.Options = .init(maxConnections: 4, checkoutTimeout: .seconds(5)),
        _ body: (PostgresClient) async throws -> Result
    ) async throws -> Result {
        try await withEmptyDatabase { database in
            let client = PostgresClient(configuration: database.configuration, options: options)
            do {
                let result = try await body(client)
                await client.close()
                return result
            } catch {
                await client.close()
                throw error
            }
        }
    }
}

/// A database made for one test.
public struct TestDatabase: Sendable {
    public let name: String
    public let configuration: PostgresConfiguration

    /// The database as a `postgres://` URL, for commands and servers under test.
    public var url: String {
        let value = { (keyword: String) in
            (configuration.value(for: keyword) ?? "").addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        }
        return "postgres://\(value("user")):\(value("password"))@\(value("host")):\(value("port"))/\(value("dbname"))"
            + "?connect_timeout=\(value("connect_timeout"))"
    }
}

extension LocalCluster {
    /// Stops the server from a test without holding a cooperative thread.
    public func stopServer() async throws {
        try await Blocking.run { try self.stop() }
    }

    /// Starts the server again from a test without holding a cooperative thread.
    public func startServer() async throws {
        try await Blocking.run { try self.start() }
    }
}

/// Why the test environment could not be set up, with what to do about it.
public struct TestSetupError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
