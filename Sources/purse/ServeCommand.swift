import ArgumentParser
import Foundation
import Logging
import Postgres
import PurseCore
import PursePostgres
import PurseServer
import ServiceLifecycle

/// `purse serve`: the HTTP API.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the HTTP API (with its own PostgreSQL when no database URL is set)."
    )

    @OptionGroup var database: DatabaseOptions

    @OptionGroup var options: ServeOptions

    func run() async throws {
        let configuration = try PurseConfiguration.read(database, options)
        let settings = configuration.server
        LoggingSystem.bootstrap { LogfmtLogHandler(label: $0, level: settings.logLevel) }
        let logger = Logger(label: "purse")
        logger.debug("Configuration: \(configuration)")
        if !settings.webhooks.allowedHosts.isEmpty && !settings.webhooks.requireHTTPS {
            logger.warning("--webhook-allowed-hosts has no effect without --webhook-require-https: every destination is allowed")
        }

        let workspace = try await Workspace.open(configuration.storage, logger: logger)
        defer { workspace.close(logger: logger) }
        let pool = PostgresClient(
            configuration: workspace.database,
            options: .init(
                maxConnections: configuration.poolSize,
                checkoutTimeout: configuration.poolTimeout,
                statementTimeout: configuration.statementTimeout,
                // Purse never pauses inside a transaction: a session idle in one this long has a
                // stalled or cut-off process behind it, and the server ends it to free its locks.
                idleInTransactionTimeout: configuration.statementTimeout
            ),
            logger: Logger(label: "purse.postgres")
        )
        let secretsRoot: MasterKey
        do {
            try await prepareSchema(pool, skipMigrations: configuration.skipMigrations, logger: logger)
            secretsRoot = try await MasterKeyService(database: PostgresDatabase(pool: pool)).unlock(with: workspace.masterKey)
        } catch {
            await pool.close()
            throw error
        }

        if workspace.localCluster != nil {
            let development = try await DevelopmentAccount.prepare(
                in: workspace.dataDirectory, accounts: AccountService(database: PostgresDatabase(pool: pool))
            )
            FileHandle.standardOutput.write(
                Data(
                    """
                    Development account \(development.account), kept in \(workspace.dataDirectory.path):
                      secret key:      \(development.secretKey)
                      publishable key: \(development.publishableKey)

                    """.utf8))
        }
        let api = try PurseApplication(
            configuration: settings, pool: pool, masterKey: secretsRoot, logger: logger
        )
        let application = api.application(
            onServerRunning: { port in
                let store =
                    workspace.localCluster.map { "its own PostgreSQL in \($0.directory.path)" }
                    ?? "the configured database"
                logger.notice(
                    "Purse is serving on \(settings.resolvedPublicURL(boundPort: port)) with \(store); data folder \(workspace.dataDirectory.path)"
                )
                // A line scripts and tests can wait for.
                FileHandle.standardOutput.write(Data("purse serve: listening on port \(port)\n".utf8))
            },
            onLoopbackServerRunning: { port in
                logger.notice("Purse is also serving plain http on http://127.0.0.1:\(port) (loopback only)")
                FileHandle.standardOutput.write(Data("purse serve: listening for plain http on 127.0.0.1 port \(port)\n".utf8))
            }
        )
        var lifecycle = ServiceGroupConfiguration(services: [application], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        // A drain lasts as long as the longest request may (its deadline), and webhook sends in
        // flight get as long again; then what is left is cancelled.
        lifecycle.maximumGracefulShutdownDuration = (settings.requestTimeout ?? .seconds(15)) * 2
        let services = ServiceGroup(configuration: lifecycle)
        try await services.run()
        logger.notice("Purse stopped")
    }

    /// Applies pending migrations, or with --skip-migrations checks that none are pending.
    private func prepareSchema(_ pool: PostgresClient, skipMigrations: Bool, logger: Logger) async throws {
        let migrator = try Schema.migrator()
        var status = try await migrator.status(pool)
        if skipMigrations {
            guard status.isCurrent else {
                throw CommandError(
                    "The database schema is behind (pending migrations \(status.pending)). Run `purse migrate` "
                        + "or start without --skip-migrations."
                )
            }
        } else if !status.isCurrent {
            let applied = try await migrator.migrate(pool)
            logger.info("Applied migrations \(applied)")
            status = try await migrator.status(pool)
        }
        if !status.unknown.isEmpty {
            // A newer release migrated the database while this one still serves: a rolling upgrade.
            logger.notice("The database has migrations \(status.unknown) that this binary does not know (a newer release's); serving on")
        }
    }
}
