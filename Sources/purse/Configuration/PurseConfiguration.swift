import ArgumentParser
import Foundation
import Logging
import PurseCore
import PurseServer

/// Everything `purse` runs with, read once when a subcommand starts: each key from its flag, else
/// its environment variable (an empty one counts as unset), else its default.
///
/// The keys, with their flags, variables, defaults and meanings, are the one table in README.md
/// ("Configuration"); this file is the only place that reads them. The flags are declared in
/// ``DatabaseOptions`` and ``ServeOptions``.
///
/// apple/swift-configuration is not used: its `CommandLineArgumentsProvider` parses the
/// process's arguments a second time beside swift-argument-parser (which must keep the
/// subcommands, `--help` and the flag errors operators see), and its environment provider
/// derives variable names from keys (`port` → `PORT`), so every documented name (`PURSE_PORT`,
/// `DATABASE_URL`, the `=1` switches, empty meaning unset) would need a mapping layer of its
/// own. Three adapters to read some twenty keys is more code than the reading itself.
struct PurseConfiguration: CustomStringConvertible {
    /// What every subcommand that touches the database works with.
    var storage: Storage
    /// How `purse serve` serves.
    var server: ServerConfiguration
    /// Most database connections `purse serve` opens.
    var poolSize: Int
    /// How long a request waits for a connection before its 503.
    var poolTimeout: Duration
    /// How long one statement, or a commit, may take before it is cancelled.
    var statementTimeout: Duration
    /// Do not migrate on start; refuse to start when the schema is behind.
    var skipMigrations: Bool

    struct Storage: CustomStringConvertible {
        /// The PostgreSQL to use; nil for the local default cluster in `dataDirectory/postgres`.
        var databaseURL: String?
        var dataDirectory: URL
        var masterKeyFile: URL
        /// `PURSE_MASTER_KEY`, which wins over `masterKeyFile`.
        var masterKey: String?

        /// Secrets redacted: the database password and the master key.
        var description: String {
            "database_url=\(databaseURL.map(Self.redactingPassword) ?? "(local default)") data_dir=\(dataDirectory.path) "
                + "master_key_file=\(masterKeyFile.path) master_key=\(masterKey == nil ? "(file)" : "(set, redacted)")"
        }

        private static func redactingPassword(_ url: String) -> String {
            guard var components = URLComponents(string: url), components.password != nil else { return url }
            components.password = "redacted"
            return components.string ?? "(unparseable, redacted)"
        }
    }

    var description: String {
        "\(storage) \(server) pool_size=\(poolSize) pool_timeout=\(poolTimeout) statement_timeout=\(statementTimeout) skip_migrations=\(skipMigrations)"
    }

    /// The storage keys: what `migrate`, `accounts` and `keys` run with.
    static func readStorage(
        _ database: DatabaseOptions, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Storage {
        let layers = Layers(environment: environment)
        let dataDirectory = readDataDirectory(database.dataDirectory, environment: environment)
        return Storage(
            databaseURL: layers.text(database.databaseURL, "DATABASE_URL"),
            dataDirectory: dataDirectory,
            masterKeyFile: layers.text(database.masterKeyFile, "PURSE_MASTER_KEY_FILE").map {
                URL(fileURLWithPath: $0).standardizedFileURL
            } ?? dataDirectory.appendingPathComponent("master.key"),
            masterKey: layers.text(nil, "PURSE_MASTER_KEY")
        )
    }

    /// The data folder alone (`purse certificates` keeps its development CA there).
    static func readDataDirectory(_ flag: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        let path = Layers(environment: environment).text(flag, "PURSE_DATA_DIR") ?? ".purse"
        return URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
            .standardizedFileURL
    }

    /// Every key: what `purse serve` runs with. Throws `ValidationError` naming the key that is
    /// not usable.
    static func read(
        _ database: DatabaseOptions, _ serve: ServeOptions, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> PurseConfiguration {
        let layers = Layers(environment: environment)
        let poolTimeout = try layers.seconds(serve.poolTimeout, "PURSE_POOL_TIMEOUT", default: 5)
        let statementTimeout = try layers.seconds(serve.statementTimeout, "PURSE_STATEMENT_TIMEOUT", default: 10)
        return PurseConfiguration(
            storage: readStorage(database, environment: environment),
            server: try server(serve, layers),
            poolSize: try layers.integer(serve.poolSize, "PURSE_POOL_SIZE", default: 8),
            poolTimeout: .milliseconds(Int(poolTimeout * 1000)),
            statementTimeout: .milliseconds(Int(statementTimeout * 1000)),
            skipMigrations: layers.isOn(serve.skipMigrations, "PURSE_SKIP_MIGRATIONS")
        )
    }

    private static func server(_ serve: ServeOptions, _ layers: Layers) throws -> ServerConfiguration {
        let levelText = layers.text(serve.logLevel, "PURSE_LOG_LEVEL") ?? "info"
        guard let level = Logger.Level(rawValue: levelText.lowercased()) else {
            throw ValidationError("Unknown log level '\(levelText)'.")
        }
        let port = try layers.integer(serve.port, "PURSE_PORT", default: 4242)
        guard (0...65_535).contains(port) else { throw ValidationError("The port must be between 0 and 65535.") }
        let publicURL = layers.text(serve.publicURL, "PURSE_PUBLIC_URL")
        if let publicURL {
            guard let url = URL(string: publicURL), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                throw ValidationError("The public URL must be an absolute http(s) URL, such as https://purse.example.com.")
            }
        }
        let maxBodySize = try layers.integer(serve.maxBodySize, "PURSE_MAX_BODY_SIZE", default: 1 << 20)
        guard maxBodySize >= 1024 else { throw ValidationError("The largest body must be at least 1024 bytes.") }
        let readTimeout = try layers.integer(serve.readTimeout, "PURSE_READ_TIMEOUT", default: 30)
        guard readTimeout >= 1 else { throw ValidationError("The read timeout is at least one second.") }
        let requestTimeout = try layers.seconds(serve.requestTimeout, "PURSE_REQUEST_TIMEOUT", default: 15)
        let rate = try layers.integer(serve.rateLimit, "PURSE_RATE_LIMIT", default: 0)
        let burst = try layers.integer(serve.rateLimitBurst, "PURSE_RATE_LIMIT_BURST", default: rate * 2)
        guard rate >= 0, burst >= 0 else { throw ValidationError("Rate limits are zero (off) or more.") }
        let keyLifetime = try layers.integer(serve.ephemeralKeyLifetime, "PURSE_EPHEMERAL_KEY_LIFETIME", default: 3600)
        let sessionLifetime = try layers.integer(serve.customerSessionLifetime, "PURSE_CUSTOMER_SESSION_LIFETIME", default: 1800)
        guard keyLifetime >= 1, sessionLifetime >= 1 else { throw ValidationError("Lifetimes are at least one second.") }
        return ServerConfiguration(
            host: layers.text(serve.host, "PURSE_HOST") ?? "127.0.0.1",
            port: port,
            publicURL: publicURL,
            logLevel: level,
            maxBodySize: maxBodySize,
            readTimeout: readTimeout,
            requestTimeout: .milliseconds(Int(requestTimeout * 1000)),
            rateLimit: rate > 0 ? ServerConfiguration.RateLimit(rate: Double(rate), burst: max(1, burst)) : nil,
            trustedProxies: try trustedProxies(serve, layers),
            ephemeralKeyLifetime: keyLifetime,
            customerSessionLifetime: sessionLifetime,
            webhooks: try webhooks(serve, layers),
            tls: try tls(serve, layers)
        )
    }

    private static func webhooks(_ serve: ServeOptions, _ layers: Layers) throws -> ServerConfiguration.Webhooks {
        let scheduleText = layers.text(serve.webhookRetrySchedule, "PURSE_WEBHOOK_RETRY_SCHEDULE") ?? "5,30,120,600,3600,10800"
        let schedule = scheduleText.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !schedule.isEmpty, schedule.count == scheduleText.split(separator: ",").count, schedule.allSatisfy({ $0 >= 1 }) else {
            throw ValidationError("The webhook retry schedule is whole seconds separated by commas, such as 5,30,120.")
        }
        let timeoutSeconds = try layers.seconds(serve.webhookTimeout, "PURSE_WEBHOOK_TIMEOUT", default: 10)
        let allowedHosts: WebhookAllowList
        do throws(WebhookAllowList.InvalidEntry) {
            allowedHosts = try WebhookAllowList(parsing: layers.text(serve.webhookAllowedHosts, "PURSE_WEBHOOK_ALLOWED_HOSTS") ?? "")
        } catch {
            throw ValidationError(
                "The webhook allowed hosts are host names and address blocks separated by commas, such as localhost,10.0.0.0/8; "
                    + "'\(error.entry)' is neither."
            )
        }
        return ServerConfiguration.Webhooks(
            requireHTTPS: layers.isOn(serve.webhookRequireHTTPS, "PURSE_WEBHOOK_REQUIRE_HTTPS"),
            allowedHosts: allowedHosts,
            retrySchedule: schedule,
            giveUpAfter: try layers.integer(serve.webhookGiveUpAfter, "PURSE_WEBHOOK_GIVE_UP_AFTER", default: 259_200),
            timeout: .milliseconds(Int(timeoutSeconds * 1000))
        )
    }

    private static func trustedProxies(_ serve: ServeOptions, _ layers: Layers) throws -> [IPRange] {
        guard let text = layers.text(serve.trustedProxies, "PURSE_TRUSTED_PROXIES") else { return [] }
        return try text.split(separator: ",").map { item in
            let trimmed = item.trimmingCharacters(in: .whitespaces)
            guard let range = IPRange(trimmed) else {
                throw ValidationError("'\(trimmed)' in the trusted proxies is neither an IP address nor a CIDR range.")
            }
            return range
        }
    }

    /// `--tls-certificate` and `--tls-key` go together; `--loopback-http-port` needs them.
    private static func tls(_ serve: ServeOptions, _ layers: Layers) throws -> ServerConfiguration.TLS? {
        let certificate = layers.text(serve.tlsCertificate, "PURSE_TLS_CERTIFICATE")
        let key = layers.text(serve.tlsKey, "PURSE_TLS_KEY")
        let loopback: Int? =
            if serve.loopbackHTTPPort != nil || layers.text(nil, "PURSE_LOOPBACK_HTTP_PORT") != nil {
                try layers.integer(serve.loopbackHTTPPort, "PURSE_LOOPBACK_HTTP_PORT", default: 0)
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
}

/// The precedence: a flag, else its environment variable (empty counts as unset), else the default.
private struct Layers {
    let environment: [String: String]

    func text(_ flag: String?, _ variable: String) -> String? {
        if let flag { return flag }
        guard let value = environment[variable], !value.isEmpty else { return nil }
        return value
    }

    func integer(_ flag: Int?, _ variable: String, default fallback: Int) throws -> Int {
        if let flag { return flag }
        guard let text = text(nil, variable) else { return fallback }
        guard let value = Int(text) else { throw ValidationError("\(variable) must be a whole number, not '\(text)'.") }
        return value
    }

    /// A positive number of seconds.
    func seconds(_ flag: Double?, _ variable: String, default fallback: Double) throws -> Double {
        if let flag { return flag }
        guard let text = text(nil, variable) else { return fallback }
        guard let value = Double(text), value > 0 else { throw ValidationError("\(variable) must be a positive number.") }
        return value
    }

    /// A switch: the flag given, or the variable 1, true or yes (any case).
    func isOn(_ flag: Bool, _ variable: String) -> Bool {
        guard !flag else { return true }
        guard let value = text(nil, variable)?.lowercased() else { return false }
        return ["1", "true", "yes"].contains(value)
    }
}
