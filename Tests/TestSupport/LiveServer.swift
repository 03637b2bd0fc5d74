public import Foundation
public import Logging
public import Postgres
public import PurseCore
import PursePostgres
public import PurseServer
import ServiceLifecycle

/// `purse serve`'s application running in the test process on a free loopback port, over a real
/// PostgreSQL database.
public final class LiveServer: Sendable {
    public let port: Int
    public let pool: PostgresClient
    public let baseURL: URL
    public let masterKey: MasterKey
    /// The routes the application registered.
    public let routes: [PurseApplication.RouteDescription]
    private let group: ServiceGroup
    private let running: Task<Void, any Error>

    private init(
        port: Int, pool: PostgresClient, masterKey: MasterKey, routes: [PurseApplication.RouteDescription],
        group: ServiceGroup, running: Task<Void, any Error>
    ) {
        self.port = port
        self.pool = pool
        self.masterKey = masterKey
        self.routes = routes
        self.baseURL = URL(string: "http://127.0.0.1:\(port)")!
        self.group = group
        self.running = running
    }

    /// Starts a server on `database` (migrated first) and returns once it listens.
    public static func start(
        database: PostgresConfiguration,
        configuration: ServerConfiguration = ServerConfiguration(port: 0, logLevel: .warning),
        poolOptions: PostgresClient.Options = .init(maxConnections: 4, checkoutTimeout: .seconds(2)),
        masterKey: MasterKey = .generate()
    ) async throws -> LiveServer {
        try await start(
            database: database, configuration: configuration, poolOptions: poolOptions, masterKey: masterKey, webhookNetwork: .system
        )
    }

    /// Starts a server whose webhooks reach the network through `webhookNetwork` (a scripted
    /// resolver, a test certificate authority).
    package static func start(
        database: PostgresConfiguration,
        configuration: ServerConfiguration = ServerConfiguration(port: 0, logLevel: .warning),
        poolOptions: PostgresClient.Options = .init(maxConnections: 4, checkoutTimeout: .seconds(2)),
        masterKey: MasterKey = .generate(),
        webhookNetwork: WebhookNetwork
    ) async throws -> LiveServer {
        // Tests sweep when they choose (``sweep()``); a round of the server's own could take
        // what a test set up to be swept before the test looks.
        var configuration = configuration
        configuration.housekeepingInterval = nil
        let pool = PostgresClient(configuration: database, options: poolOptions)
        try await Schema.migrator().migrate(pool)
        var logger = Logger(label: "purse.test")
        logger.logLevel = configuration.logLevel
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let api = try PurseApplication(
            configuration: configuration, pool: pool, masterKey: masterKey, logger: logger, webhookNetwork: webhookNetwork
        )
        let application = api.application(onServerRunning: { port in portContinuation.yield(port) })
        let group = ServiceGroup(configuration: .init(services: [application], logger: logger))
        let running = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw TestSetupError("The server did not start") }
        return LiveServer(port: port, pool: pool, masterKey: masterKey, routes: api.routes, group: group, running: running)
    }

    /// Shuts down gracefully (in-flight requests finish) and waits until it has.
    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await running.value
    }

    /// Runs `body` with a server on a new, migrated database; stops it and drops the database
    /// afterwards even when `body` throws.
    public static func with<Result>(
        configuration: ServerConfiguration = ServerConfiguration(port: 0, logLevel: .warning),
        poolOptions: PostgresClient.Options = .init(maxConnections: 4, checkoutTimeout: .seconds(2)),
        _ body: (LiveServer) async throws -> Result
    ) async throws -> Result {
        try await with(configuration: configuration, poolOptions: poolOptions, webhookNetwork: .system, body)
    }

    /// ``with(configuration:poolOptions:_:)`` with webhooks reaching the network through `webhookNetwork`.
    package static func with<Result>(
        configuration: ServerConfiguration = ServerConfiguration(port: 0, logLevel: .warning),
        poolOptions: PostgresClient.Options = .init(maxConnections: 4, checkoutTimeout: .seconds(2)),
        webhookNetwork: WebhookNetwork,
        _ body: (LiveServer) async throws -> Result
    ) async throws -> Result {
        try await TestPostgres.withEmptyDatabase { database in
            let server = try await start(
                database: database.configuration, configuration: configuration, poolOptions: poolOptions, webhookNetwork: webhookNetwork
            )
            do {
                let result = try await body(server)
                await server.stop()
                return result
            } catch {
                await server.stop()
                throw error
            }
        }
    }
}

extension LiveServer {
    /// What one round of housekeeping swept.
    public struct Swept: Sendable {
        public let expiredEphemeralKeys: Int
        public let abandonedSetupIntents: Int
    }

    /// Runs the sweeps `purse serve` runs every few minutes, now.
    public func sweep() async throws -> Swept {
        let keys = try await EphemeralKeyService(database: PostgresDatabase(pool: pool), lifetime: 3600, caches: ChangeCaches()).sweepExpired()
        let intents = try await SetupIntentService(
            database: PostgresDatabase(pool: pool), processor: TestProcessor(), masterKey: masterKey, publicURL: PublicURL(baseURL.absoluteString),
            caches: ChangeCaches()
        ).sweepAbandoned()
        return Swept(expiredEphemeralKeys: keys, abandonedSetupIntents: intents)
    }
}
