public import Hummingbird
public import Logging
public import Postgres
import PurseCore

/// Builds the HTTP application: its router, middleware and controllers.
public enum PurseApplication {
    /// The application for `purse serve` and the tests. `onServerRunning` receives the bound port
    /// (useful with port 0).
    public static func make(
        configuration: ServerConfiguration,
        pool: PostgresClient,
        logger: Logger,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws -> some ApplicationProtocol {
        let router = Router(context: PurseRequestContext.self)
        router.add(middleware: ResponseMiddleware())

        let health = HealthController(health: try DatabaseHealth(pool: pool))
        router.get("/healthz", use: health.healthz)
        router.get("/readyz", use: health.readyz)

        return Application(
            router: router,
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port),
                serverName: nil
            ),
            services: [pool],
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
            logger: logger
        )
    }
}
