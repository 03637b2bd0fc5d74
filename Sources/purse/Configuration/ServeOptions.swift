import ArgumentParser

/// The flags of `purse serve` beyond the database's; ``PurseConfiguration`` reads them, with
/// their environment variables and defaults.
struct ServeOptions: ParsableArguments {
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

    @Option(
        name: .customLong("statement-timeout"),
        help: ArgumentHelp(
            "Seconds one database statement, or a commit waiting for a synchronous standby, may take before it is "
                + "cancelled and the request answered 503; also how long a session may sit idle in a transaction "
                + "before PostgreSQL ends it (env PURSE_STATEMENT_TIMEOUT; default 10).")
    )
    var statementTimeout: Double?

    @Option(
        name: .customLong("request-timeout"),
        help: ArgumentHelp(
            "Seconds an API request may run before it is stopped and answered 503 (env PURSE_REQUEST_TIMEOUT; "
                + "default 15).")
    )
    var requestTimeout: Double?

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
}
