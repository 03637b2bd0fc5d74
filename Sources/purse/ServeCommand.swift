import ArgumentParser
import Foundation
import Logging
import NIOCore
import NIOPosix
import Postgres
import PurseCore
import PurseServer
import ServiceLifecycle

/// `purse serve`: the HTTP API.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the HTTP API (with its own PostgreSQL when no database URL is set)."
    )

    @OptionGroup var database: DatabaseOptions

    @Option(help: "Address to listen on (env PURSE_HOST; default 127.0.0.1).")
    var host: String?

    @Option(help: "Port to listen on, 0 for any free one (env PURSE_PORT; default 4242).")
    var port: Int?

    @Option(
        name: .customLong("public-url"),
        help: ArgumentHelp(
            "Absolute base URL clients reach Purse at, for the links it hands out (env PURSE_PUBLIC_URL; "
                + "default the listening address).")
    )
    var publicURL: String?

    @Option(name: .customLong("pool-size"), help: "Most database connections (env PURSE_POOL_SIZE; default 8).")
    var poolSize: Int?

    @Option(
        name: .customLong("pool-timeout"),
        help: "Seconds a request waits for a database connection before a 503 (env PURSE_POOL_TIMEOUT; default 5)."
    )
    var poolTimeout: Double?

    @Option(name: .customLong("log-level"), help: "trace|debug|info|notice|warning|error|critical (env PURSE_LOG_LEVEL; default info).")
    var logLevel: String?

    @Option(name: .customLong("max-body-size"), help: "Largest request body in bytes (env PURSE_MAX_BODY_SIZE; default 1048576).")
    var maxBodySize: Int?

    @Option(
        name: .customLong("read-timeout"),
        help: "Seconds a client has to send a request's headers, then its body (env PURSE_READ_TIMEOUT; default 30)."
    )
    var readTimeout: Int?

    @Option(
        name: .customLong("rate-limit"),
        help: "Requests per second each key may make; 0 turns limits off (env PURSE_RATE_LIMIT; default 0)."
    )
    var rateLimit: Int?

    @Option(
        name: .customLong("rate-limit-burst"),
        help: "Requests a key may make at once after a quiet spell (env PURSE_RATE_LIMIT_BURST; default twice the rate)."
    )
    var rateLimitBurst: Int?

    @Option(
        name: .customLong("trusted-proxies"),
        help: ArgumentHelp(
            "Comma-separated addresses or CIDRs of proxies whose X-Forwarded-For names the client, for limits kept per "
                + "client (env PURSE_TRUSTED_PROXIES; default none: the header is ignored).")
    )
    var trustedProxies: String?

    @Option(
        name: .customLong("ephemeral-key-lifetime"),
        help: "Seconds an ephemeral key lives (env PURSE_EPHEMERAL_KEY_LIFETIME; default 3600)."
    )
    var ephemeralKeyLifetime: Int?

    @Option(
        name: .customLong("customer-session-lifetime"),
        help: "Seconds a customer session lives (env PURSE_CUSTOMER_SESSION_LIFETIME; default 1800)."
    )
    var customerSessionLifetime: Int?

    @Flag(
        name: .customLong("webhook-require-https"),
        help: "Accept only https webhook endpoints on public hosts (env PURSE_WEBHOOK_REQUIRE_HTTPS=1)."
    )
    var webhookRequireHTTPS = false

    @Option(
        name: .customLong("webhook-allowed-hosts"),
        help: ArgumentHelp(
            "With --webhook-require-https, host names and address blocks exempt from the public-host rules, comma-separated, "
                + "such as localhost,hooks.internal,10.0.0.0/8 (env PURSE_WEBHOOK_ALLOWED_HOSTS; default none).")
    )
    var webhookAllowedHosts: String?

    @Option(
        name: .customLong("webhook-retry-schedule"),
        help: ArgumentHelp(
            "Seconds before each webhook retry, comma-separated; the last repeats (env PURSE_WEBHOOK_RETRY_SCHEDULE; "
                + "default 5,30,120,600,3600,10800).")
    )
    var webhookRetrySchedule: String?

    @Option(
        name: .customLong("webhook-give-up-after"),
        help: "Seconds after an event when its retries stop (env PURSE_WEBHOOK_GIVE_UP_AFTER; default 259200, 3 days)."
    )
    var webhookGiveUpAfter: Int?

    @Option(name: .customLong("webhook-timeout"), help: "Seconds one webhook attempt may take (env PURSE_WEBHOOK_TIMEOUT; default 10).")
    var webhookTimeout: Double?

    @Option(
        name: .customLong("tls-certificate"),
        help: ArgumentHelp(
            "PEM certificate chain to serve https with, together with --tls-key (env PURSE_TLS_CERTIFICATE; "
                + "`purse certificates create` makes one for development).")
    )
    var tlsCertificate: String?

    @Option(name: .customLong("tls-key"), help: "PEM private key of the TLS certificate (env PURSE_TLS_KEY).")
    var tlsKey: String?

    @Option(
        name: .customLong("loopback-http-port"),
        help: "With TLS, also serve plain http on 127.0.0.1 at this port, 0 for any free one (env PURSE_LOOPBACK_HTTP_PORT)."
    )
    var loopbackHTTPPort: Int?

    @Flag(
        name: .customLong("skip-migrations"),
        help: "Do not apply pending migrations on start; refuse to start if the schema is behind (env PURSE_SKIP_MIGRATIONS=1)."
    )
    var skipMigrations = false

    func run() async throws {
        // Swift concurrency's jobs run on NIO's event loops rather than a second pool of threads,
        // so a request's handler no longer hops from its connection's loop to another thread and
        // back (on the benchmark: about a quarter fewer context switches per request). Each
        // connection then prefers its own loop (ConnectionLoopChildChannel).
        _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        let settings = try serverConfiguration()
        LoggingSystem.bootstrap { LogfmtLogHandler(label: $0, level: settings.logLevel) }
        let logger = Logger(label: "purse")
        if !settings.webhooks.allowedHosts.isEmpty && !settings.webhooks.requireHTTPS {
            logger.warning("--webhook-allowed-hosts has no effect without --webhook-require-https: every destination is allowed")
        }

        let workspace = try await Workspace.open(database, logger: logger)
        defer { workspace.close(logger: logger) }
        let pool = PostgresClient(
            configuration: workspace.database,
            options: .init(
                maxConnections: try integer(poolSize, "PURSE_POOL_SIZE", default: 8),
                checkoutTimeout: .milliseconds(Int(try number(poolTimeout, "PURSE_POOL_TIMEOUT", default: 5) * 1000))
            ),
            logger: Logger(label: "purse.postgres")
        )
        do {
            try await prepareSchema(pool, logger: logger)
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
            configuration: settings, pool: pool, masterKey: workspace.masterKey, logger: logger
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
        let services = ServiceGroup(
            configuration: .init(
                services: [application],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        try await services.run()
        logger.notice("Purse stopped")
    }

    /// Applies pending migrations, or with --skip-migrations checks that none are pending.
    private func prepareSchema(_ pool: PostgresClient, logger: Logger) async throws {
        let migrator = try Schema.migrator()
        if skipMigrations || Environment.flag("PURSE_SKIP_MIGRATIONS") {
            let status = try await migrator.status(pool)
            guard status.isCurrent else {
                throw CommandError(
                    "The database schema is behind (pending migrations \(status.pending)). Run `purse migrate` "
                        + "or start without --skip-migrations."
                )
            }
            return
        }
        let applied = try await migrator.migrate(pool)
        if !applied.isEmpty { logger.info("Applied migrations \(applied)") }
    }

    private func serverConfiguration() throws -> ServerConfiguration {
        let levelText = logLevel ?? Environment.value("PURSE_LOG_LEVEL") ?? "info"
        guard let level = Logger.Level(rawValue: levelText.lowercased()) else {
            throw ValidationError("Unknown log level '\(levelText)'.")
        }
        let port = try integer(self.port, "PURSE_PORT", default: 4242)
        guard (0...65_535).contains(port) else { throw ValidationError("The port must be between 0 and 65535.") }
        let publicURL = self.publicURL ?? Environment.value("PURSE_PUBLIC_URL")
        if let publicURL {
            guard let url = URL(string: publicURL), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                throw ValidationError("The public URL must be an absolute http(s) URL, such as https://purse.example.com.")
            }
        }
        let maxBodySize = try integer(self.maxBodySize, "PURSE_MAX_BODY_SIZE", default: 1 << 20)
        guard maxBodySize >= 1024 else { throw ValidationError("The largest body must be at least 1024 bytes.") }
        let readTimeout = try integer(self.readTimeout, "PURSE_READ_TIMEOUT", default: 30)
        guard readTimeout >= 1 else { throw ValidationError("The read timeout is at least one second.") }
        let rate = try integer(self.rateLimit, "PURSE_RATE_LIMIT", default: 0)
        let burst = try integer(self.rateLimitBurst, "PURSE_RATE_LIMIT_BURST", default: rate * 2)
        guard rate >= 0, burst >= 0 else { throw ValidationError("Rate limits are zero (off) or more.") }
        let keyLifetime = try integer(ephemeralKeyLifetime, "PURSE_EPHEMERAL_KEY_LIFETIME", default: 3600)
        let sessionLifetime = try integer(customerSessionLifetime, "PURSE_CUSTOMER_SESSION_LIFETIME", default: 1800)
        guard keyLifetime >= 1, sessionLifetime >= 1 else { throw ValidationError("Lifetimes are at least one second.") }
        let scheduleText = webhookRetrySchedule ?? Environment.value("PURSE_WEBHOOK_RETRY_SCHEDULE") ?? "5,30,120,600,3600,10800"
        let schedule = scheduleText.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !schedule.isEmpty, schedule.count == scheduleText.split(separator: ",").count, schedule.allSatisfy({ $0 >= 1 }) else {
            throw ValidationError("The webhook retry schedule is whole seconds separated by commas, such as 5,30,120.")
        }
        let timeoutSeconds = try number(webhookTimeout, "PURSE_WEBHOOK_TIMEOUT", default: 10)
        let allowedHosts: WebhookAllowList
        do throws(WebhookAllowList.InvalidEntry) {
            allowedHosts = try WebhookAllowList(parsing: webhookAllowedHosts ?? Environment.value("PURSE_WEBHOOK_ALLOWED_HOSTS") ?? "")
        } catch {
            throw ValidationError(
                "The webhook allowed hosts are host names and address blocks separated by commas, such as localhost,10.0.0.0/8; "
                    + "'\(error.entry)' is neither."
            )
        }
        let webhooks = ServerConfiguration.Webhooks(
            requireHTTPS: webhookRequireHTTPS || Environment.flag("PURSE_WEBHOOK_REQUIRE_HTTPS"),
            allowedHosts: allowedHosts,
            retrySchedule: schedule,
            giveUpAfter: try integer(webhookGiveUpAfter, "PURSE_WEBHOOK_GIVE_UP_AFTER", default: 259_200),
            timeout: .milliseconds(Int(timeoutSeconds * 1000))
        )
        return ServerConfiguration(
            host: host ?? Environment.value("PURSE_HOST") ?? "127.0.0.1",
            port: port,
            publicURL: publicURL,
            logLevel: level,
            maxBodySize: maxBodySize,
            readTimeout: readTimeout,
            rateLimit: rate > 0 ? ServerConfiguration.RateLimit(rate: Double(rate), burst: max(1, burst)) : nil,
            trustedProxies: try proxies(),
            ephemeralKeyLifetime: keyLifetime,
            customerSessionLifetime: sessionLifetime,
            webhooks: webhooks,
            tls: try tlsConfiguration()
        )
    }

    private func proxies() throws -> [IPRange] {
        guard let text = trustedProxies ?? Environment.value("PURSE_TRUSTED_PROXIES") else { return [] }
        return try text.split(separator: ",").map { item in
            let trimmed = item.trimmingCharacters(in: .whitespaces)
            guard let range = IPRange(trimmed) else {
                throw ValidationError("'\(trimmed)' in the trusted proxies is neither an IP address nor a CIDR range.")
            }
            return range
        }
    }

    /// `--tls-certificate` and `--tls-key` go together; `--loopback-http-port` needs them.
    private func tlsConfiguration() throws -> ServerConfiguration.TLS? {
        let certificate = tlsCertificate ?? Environment.value("PURSE_TLS_CERTIFICATE")
        let key = tlsKey ?? Environment.value("PURSE_TLS_KEY")
        let loopback: Int? =
            if let loopbackHTTPPort { loopbackHTTPPort } else if Environment.value("PURSE_LOOPBACK_HTTP_PORT") != nil {
                try integer(nil, "PURSE_LOOPBACK_HTTP_PORT", default: 0)
            } else { nil }
        if let loopback, !(0...65_535).contains(loopback) {
            throw ValidationError("The loopback http port must be between 0 and 65535.")
        }
        switch (certificate, key) {
        case (nil, nil):
            guard loopback == nil else {
                throw ValidationError("--loopback-http-port serves http beside https: give --tls-certificate and --tls-key.")
            }
            return nil
        case (let certificate?, let key?):
            return ServerConfiguration.TLS(certificateChainPath: certificate, privateKeyPath: key, loopbackHTTPPort: loopback)
        default:
            throw ValidationError("--tls-certificate and --tls-key go together: give both to serve https.")
        }
    }

    private func integer(_ flag: Int?, _ variable: String, default fallback: Int) throws -> Int {
        if let flag { return flag }
        guard let text = Environment.value(variable) else { return fallback }
        guard let value = Int(text) else { throw ValidationError("\(variable) must be a whole number, not '\(text)'.") }
        return value
    }

    private func number(_ flag: Double?, _ variable: String, default fallback: Double) throws -> Double {
        if let flag { return flag }
        guard let text = Environment.value(variable) else { return fallback }
        guard let value = Double(text), value > 0 else { throw ValidationError("\(variable) must be a positive number.") }
        return value
    }
}
