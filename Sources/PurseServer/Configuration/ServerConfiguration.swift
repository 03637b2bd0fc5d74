public import Logging
public import PurseCore

/// How the HTTP API serves: the server's part of `purse`'s configuration, which the executable
/// reads once, from flags, the environment and defaults (`PurseConfiguration`; every key is in
/// README.md's configuration table). Tests make one directly.
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
    /// How long an API request may run before it is stopped (``Postgres/PostgresDeadline``); nil for no
    /// limit beyond the database's own.
    public var requestTimeout: Duration?
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
    /// How often the server looks for test-clock advances whose announcement it missed (it
    /// finishes the announced ones at once). Not a setting of `purse serve`: tests lengthen it to
    /// prove the announcement alone finishes an advance.
    package var testClockSweepInterval: Duration = .seconds(2)
    /// How often the server runs its housekeeping sweeps, the first time as it starts; nil runs
    /// none. Not a setting of `purse serve`: tests turn it off and sweep when they choose, so a
    /// round that starts with the server cannot take what a test is about to sweep.
    package var housekeepingInterval: Duration? = .seconds(600)

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
        requestTimeout: Duration? = .seconds(15),
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
        self.requestTimeout = requestTimeout
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
            + "max_body_size=\(maxBodySize) read_timeout=\(readTimeout) request_timeout=\(requestTimeout.map { "\($0)" } ?? "off") "
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
