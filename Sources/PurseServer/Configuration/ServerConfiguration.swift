public import Logging
public import PurseCore

/// How `purse serve` runs, parsed once from flags and the environment.
///
/// Every key, with its flag, environment variable and default (a flag wins over the variable):
///
/// | flag | environment | default | meaning |
/// |---|---|---|---|
/// | `--database-url` | `DATABASE_URL` | none: the local default cluster | PostgreSQL to use |
/// | `--data-dir` | `PURSE_DATA_DIR` | `.purse` in the current folder | master key, local cluster, dev keys |
/// | `--host` | `PURSE_HOST` | `127.0.0.1` | address to listen on |
/// | `--port` | `PURSE_PORT` | `4242` | port to listen on (0 picks a free one) |
/// | `--public-url` | `PURSE_PUBLIC_URL` | `http://<host>:<port>` | absolute base of URLs Purse hands out (3DS pages) |
/// | `--pool-size` | `PURSE_POOL_SIZE` | `8` | most database connections |
/// | `--pool-timeout` | `PURSE_POOL_TIMEOUT` | `5` | seconds to wait for a free connection before 503 |
/// | `--log-level` | `PURSE_LOG_LEVEL` | `info` | trace, debug, info, notice, warning, error, critical |
/// | `--skip-migrations` | `PURSE_SKIP_MIGRATIONS=1` | off | do not migrate on start (refuse to start if behind) |
/// | `--master-key-file` | `PURSE_MASTER_KEY_FILE` | `<data-dir>/master.key` | where the master key is kept |
/// | — | `PURSE_MASTER_KEY` | none | the master key itself (64 hex characters); wins over the file |
/// | `--max-body-size` | `PURSE_MAX_BODY_SIZE` | `1048576` | largest request body in bytes (413 above) |
/// | `--read-timeout` | `PURSE_READ_TIMEOUT` | `30` | seconds a client has to send a request's headers, then its body (408); an idle connection closes after it |
/// | `--rate-limit` | `PURSE_RATE_LIMIT` | `0` (off) | requests per second each key may make (429 `rate_limit` with `Retry-After` above) |
/// | `--rate-limit-burst` | `PURSE_RATE_LIMIT_BURST` | twice the rate | requests a key may make at once after a quiet spell |
/// | `--trusted-proxies` | `PURSE_TRUSTED_PROXIES` | none | addresses or CIDRs of proxies whose `X-Forwarded-For` names the client (for per-client limits) |
/// | `--ephemeral-key-lifetime` | `PURSE_EPHEMERAL_KEY_LIFETIME` | `3600` | seconds an ephemeral key lives |
/// | `--customer-session-lifetime` | `PURSE_CUSTOMER_SESSION_LIFETIME` | `1800` | seconds a customer session lives |
/// | `--webhook-require-https` | `PURSE_WEBHOOK_REQUIRE_HTTPS=1` | off | only https endpoints on public hosts: names and every address they resolve to, checked at registration and before every delivery |
/// | `--webhook-allowed-hosts` | `PURSE_WEBHOOK_ALLOWED_HOSTS` | none | with `--webhook-require-https`: host names and address blocks (comma-separated, e.g. `localhost,hooks.internal,10.0.0.0/8`) exempt from the public-host rules (not from https) |
/// | `--webhook-retry-schedule` | `PURSE_WEBHOOK_RETRY_SCHEDULE` | `5,30,120,600,3600,10800` | seconds before each retry; the last repeats |
/// | `--webhook-give-up-after` | `PURSE_WEBHOOK_GIVE_UP_AFTER` | `259200` | seconds after the event when retries stop (3 days) |
/// | `--webhook-timeout` | `PURSE_WEBHOOK_TIMEOUT` | `10` | seconds one delivery attempt may take |
/// | `--tls-certificate` | `PURSE_TLS_CERTIFICATE` | none | PEM certificate chain: with `--tls-key`, serve https |
/// | `--tls-key` | `PURSE_TLS_KEY` | none | PEM private key of that certificate |
/// | `--loopback-http-port` | `PURSE_LOOPBACK_HTTP_PORT` | none | with TLS, also serve plain http on 127.0.0.1 at this port (0: any free one) |
public struct ServerConfiguration: Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int
    /// Without a trailing slash. Nil means "the address the server listens on".
    public var publicURL: String?
    public var logLevel: Logger.Level
    public var maxBodySize: Int
    /// Seconds a client has to send a request's headers, and then its body; see
    /// `RequestReadTimeoutHandler`.
    public var readTimeout: Int
    /// Requests per key per second, or nil for no limit (the default); see ``RateLimiter``. Also
    /// the allowance of failed authentications per client address.
    public var rateLimit: RateLimit?
    /// Proxies whose `X-Forwarded-For` says which client a request came from; see ``ClientAddress``.
    public var trustedProxies: [IPRange]
    /// Seconds an ephemeral key lives.
    public var ephemeralKeyLifetime: Int
    /// Seconds a customer session lives.
    public var customerSessionLifetime: Int
    /// How webhook endpoints are accepted and delivered to.
    public var webhooks: Webhooks
    /// Serve https with this certificate; nil serves plain http.
    public var tls: TLS?

    /// The files of the certificate `purse serve` presents, and whether local tools may still
    /// reach it over plain http on loopback.
    public struct TLS: Sendable {
        /// PEM: the server's certificate, then its issuers.
        public var certificateChainPath: String
        /// PEM: the certificate's private key.
        public var privateKeyPath: String
        /// A port on 127.0.0.1 that serves plain http too (0: any free one), or nil for none.
        public var loopbackHTTPPort: Int?

        public init(certificateChainPath: String, privateKeyPath: String, loopbackHTTPPort: Int? = nil) {
            self.certificateChainPath = certificateChainPath
            self.privateKeyPath = privateKeyPath
            self.loopbackHTTPPort = loopbackHTTPPort
        }
    }

    public struct Webhooks: Sendable {
        /// Only https, and only to public destinations (``WebhookDestinationPolicy``).
        public var requireHTTPS: Bool
        /// Destinations exempt from the public-destination rules when `requireHTTPS` is on.
        public var allowedHosts: WebhookAllowList
        public var retrySchedule: [Int]
        public var giveUpAfter: Int
        public var timeout: Duration
        public var pollInterval: Duration

        public init(
            requireHTTPS: Bool = false, allowedHosts: WebhookAllowList = WebhookAllowList(),
            retrySchedule: [Int] = [5, 30, 120, 600, 3600, 10_800], giveUpAfter: Int = 259_200,
            timeout: Duration = .seconds(10), pollInterval: Duration = .milliseconds(500)
        ) {
            self.requireHTTPS = requireHTTPS
            self.allowedHosts = allowedHosts
            self.retrySchedule = retrySchedule
            self.giveUpAfter = giveUpAfter
            self.timeout = timeout
            self.pollInterval = pollInterval
        }
    }

    public init(
        host: String = "127.0.0.1",
        port: Int = 4242,
        publicURL: String? = nil,
        logLevel: Logger.Level = .info,
        maxBodySize: Int = 1 << 20,
        readTimeout: Int = 30,
        rateLimit: RateLimit? = nil,
        trustedProxies: [IPRange] = [],
        ephemeralKeyLifetime: Int = 3600,
        customerSessionLifetime: Int = 1800,
        webhooks: Webhooks = Webhooks(),
        tls: TLS? = nil
    ) {
        self.host = host
        self.port = port
        self.publicURL = publicURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        self.logLevel = logLevel
        self.maxBodySize = maxBodySize
        self.readTimeout = readTimeout
        self.rateLimit = rateLimit
        self.trustedProxies = trustedProxies
        self.ephemeralKeyLifetime = ephemeralKeyLifetime
        self.customerSessionLifetime = customerSessionLifetime
        self.webhooks = webhooks
        self.tls = tls
    }

    /// The public URL, or the listening address once the port is known.
    public func resolvedPublicURL(boundPort: Int) -> String {
        publicURL ?? "\(tls == nil ? "http" : "https")://\(host.contains(":") ? "[\(host)]" : host):\(boundPort)"
    }

    public var description: String {
        "host=\(host) port=\(port) public_url=\(publicURL ?? "(listening address)") log_level=\(logLevel) "
            + "max_body_size=\(maxBodySize) read_timeout=\(readTimeout) "
            + "rate_limit=\(rateLimit.map { "\($0.rate)/s burst \($0.burst)" } ?? "off") ephemeral_key_lifetime=\(ephemeralKeyLifetime) "
            + "customer_session_lifetime=\(customerSessionLifetime) tls=\(tls.map { "\($0.certificateChainPath)" } ?? "off") "
            + "webhook_require_https=\(webhooks.requireHTTPS) webhook_allowed_hosts=\(webhooks.allowedHosts)"
    }
}

extension ServerConfiguration {
    /// A per-key request rate: `rate` per second on average, `burst` at once.
    public struct RateLimit: Sendable, Equatable {
        public var rate: Double
        public var burst: Int

        public init(rate: Double, burst: Int) {
            self.rate = rate
            self.burst = max(1, burst)
        }
    }
}
