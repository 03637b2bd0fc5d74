public import Hummingbird
import HummingbirdCore
import HummingbirdTLS
public import Logging
package import NIOSSL
public import Postgres
import Prometheus
public import PurseCore
import PursePostgres
import ServiceLifecycle

/// The HTTP API: its router, middleware, controllers and background services.
public struct PurseApplication {
    /// A route the API serves, as the OpenAPI document should list it.
    public struct RouteDescription: Sendable, Hashable {
        public let method: String
        public let path: String
    }

    public let routes: [RouteDescription]
    private let configuration: ServerConfiguration
    private let router: Router<PurseRequestContext>
    private let httpMetrics: HTTPMetrics
    private let services: [any Service]
    private let logger: Logger
    private let publicURL: PublicURL
    /// The certificate and key served, read at start so a bad file stops `purse serve` at once.
    private let tlsConfiguration: TLSConfiguration?

    /// `masterKey` is what every derived secret comes from: the secrets root that the operator's
    /// master key opens (`MasterKeyService.unlock`), which stays the same when that key changes.
    public init(
        configuration: ServerConfiguration,
        pool: PostgresClient,
        masterKey: MasterKey,
        logger: Logger
    ) throws {
        try self.init(configuration: configuration, pool: pool, masterKey: masterKey, logger: logger, webhookNetwork: .system)
    }

    /// With webhooks reaching the network through `webhookNetwork`: tests give a scripted
    /// resolver and their own certificate authority.
    package init(
        configuration: ServerConfiguration,
        pool: PostgresClient,
        masterKey: MasterKey,
        logger: Logger,
        webhookNetwork: WebhookNetwork
    ) throws {
        let router = Router(context: PurseRequestContext.self)
        router.add(middleware: ResponseMiddleware())

        let processor = TestProcessor()
        let publicURL = PublicURL(configuration.resolvedPublicURL(boundPort: configuration.port))
        let caches = ChangeCaches()
        let database = PostgresDatabase(pool: pool)
        let paymentMethods = PaymentMethodService(database: database, processor: processor, masterKey: masterKey, caches: caches)
        // Background work (webhook delivery, sweeps) has connections of its own, so it can never
        // hold the ones requests need.
        var backgroundSettings = pool.configuration
        backgroundSettings.set("application_name", "purse-background")
        let background = PostgresClient(
            configuration: backgroundSettings,
            options: .init(
                maxConnections: 2, checkoutTimeout: pool.options.checkoutTimeout, statementTimeout: pool.options.statementTimeout,
                idleInTransactionTimeout: pool.options.idleInTransactionTimeout
            )
        )
        let backgroundDatabase = PostgresDatabase(pool: background)
        let customers = CustomerService(database: database, paymentMethods: paymentMethods, caches: caches)
        let setupIntents = SetupIntentService(
            database: database, processor: processor, masterKey: masterKey, publicURL: publicURL, caches: caches
        )
        let testClocks = TestClockService(database: database, caches: caches, setupIntents: setupIntents)
        let idempotency = IdempotencyService(database: database, masterKey: masterKey)
        // This application's metrics, served at `GET /metrics`. Each application has its own, so
        // servers sharing a process (the tests) never mix their figures; none is installed as
        // swift-metrics' global factory.
        let metrics = PrometheusCollectorRegistry()
        let authenticator = Authenticator(database: database, caches: caches)
        let api = APIRouter(
            router: router,
            pipeline: .init(
                authenticator: authenticator,
                idempotency: idempotency,
                loader: ObjectLoader(customers: customers, paymentMethods: paymentMethods, testClocks: testClocks),
                maxBodySize: configuration.maxBodySize,
                rateLimiter: configuration.rateLimit.map(RateLimiter.init),
                failedAuthentications: configuration.rateLimit.map(RateLimiter.init),
                clientAddress: ClientAddress(trustedProxies: configuration.trustedProxies),
                ignoredParameters: IgnoredParameters(registry: metrics),
                faultPoint: FaultPoint.fromEnvironment(),
                requestTimeout: configuration.requestTimeout
            )
        )
        let health = HealthController(health: try DatabaseHealth(pool: pool))
        api.raw(.get, "/healthz", health.healthz)
        api.raw(.get, "/readyz", health.readyz)
        let deliveryQueue = WebhookDeliveryQueue(
            database: backgroundDatabase, masterKey: masterKey, retrySchedule: configuration.webhooks.retrySchedule,
            giveUpAfter: configuration.webhooks.giveUpAfter, attemptTimeout: configuration.webhooks.timeout
        )
        let backlog = SharedRead { try await deliveryQueue.backlog() }
        api.raw(.get, "/metrics", MetricsController(registry: metrics, pool: pool, backlog: backlog, caches: caches).metrics)
        OpenAPIController.register(on: api)
        CustomersController(customers: customers).register(on: api)
        let selection = SelectedOptionService(database: database)
        PaymentMethodsController(paymentMethods: paymentMethods, selection: selection).register(on: api)
        let ephemeralKeys = EphemeralKeyService(database: database, lifetime: configuration.ephemeralKeyLifetime, caches: caches)
        EphemeralKeysController(ephemeralKeys: ephemeralKeys).register(on: api)
        SetupIntentsController(setupIntents: setupIntents).register(on: api)
        AuthenticationPageController(setupIntents: setupIntents, publicURL: publicURL).register(on: api)
        MicrodepositsPageController(setupIntents: setupIntents, publicURL: publicURL).register(on: api)
        let financialConnections = FinancialConnectionsService(
            database: database, processor: processor, masterKey: masterKey, publicURL: publicURL
        )
        FinancialConnectionsController(financialConnections: financialConnections).register(on: api)
        TestBankPageController(financialConnections: financialConnections, publicURL: publicURL).register(on: api)
        let sessions = CustomerSessionService(
            database: database, masterKey: masterKey, lifetime: configuration.customerSessionLifetime, caches: caches
        )
        CustomerSessionsController(sessions: sessions).register(on: api)
        let sheetSettings = SheetSettingsService(database: database, caches: caches)
        SheetSettingsController(settings: sheetSettings).register(on: api)
        ElementsController(
            elements: ElementsSessionService(
                setupIntents: setupIntents, sessions: sessions, paymentMethods: paymentMethods, sheetSettings: sheetSettings,
                authenticator: authenticator
            ),
            sessions: sessions, paymentMethods: paymentMethods, selection: selection, customers: customers
        ).register(on: api)
        BillingPortalController(portal: BillingPortalService(database: database, masterKey: masterKey, publicURL: publicURL))
            .register(on: api)
        PortalPageController(
            pages: BillingPortalPages(
                database: database, masterKey: masterKey, publicURL: publicURL, setupIntents: setupIntents,
                paymentMethods: paymentMethods, selection: selection, sheetSettings: sheetSettings
            ),
            publicURL: publicURL, clientAddress: ClientAddress(trustedProxies: configuration.trustedProxies)
        ).register(on: api)
        EventsController(events: EventService(database: database, masterKey: masterKey)).register(on: api)
        TestClocksController(clocks: testClocks).register(on: api)
        let backgroundSetupIntents = SetupIntentService(
            database: backgroundDatabase, processor: processor, masterKey: masterKey, publicURL: publicURL, caches: caches
        )
        let backgroundTestClocks = TestClockService(database: backgroundDatabase, caches: caches, setupIntents: backgroundSetupIntents)
        let destinations = WebhookDestinations(
            policy: WebhookDestinationPolicy(
                requireHTTPS: configuration.webhooks.requireHTTPS, allowList: configuration.webhooks.allowedHosts
            ),
            resolver: webhookNetwork.resolver
        )
        WebhookEndpointsController(
            endpoints: WebhookEndpointService(database: database, masterKey: masterKey, destinations: destinations)
        ).register(on: api)
        let delivery = WebhookDeliveryService(
            queue: deliveryQueue,
            transport: WebhookTransport(
                timeout: configuration.webhooks.timeout, destinations: destinations,
                client: WebhookHTTPClient(trustRoots: webhookNetwork.trustRoots)
            ),
            logger: logger,
            pollInterval: configuration.webhooks.pollInterval
        )

        self.routes = api.routes.map { RouteDescription(method: $0.method.rawValue, path: $0.path) }
        self.httpMetrics = HTTPMetrics(routes: api.routes.map { ($0.method, $0.path) }, registry: metrics)
        self.configuration = configuration
        self.router = router
        // Shut down in reverse order, each after the one before it finished, and the HTTP server
        // first: webhook delivery comes right after it, so a stopping server takes no new
        // deliveries while the services before it wind down (they stay for the next server).
        var services: [any Service] = [pool, background]
        if let interval = configuration.housekeepingInterval {
            services.append(
                MaintenanceService(
                    idempotency: IdempotencyService(database: backgroundDatabase, masterKey: masterKey),
                    ephemeralKeys: EphemeralKeyService(
                        database: backgroundDatabase, lifetime: configuration.ephemeralKeyLifetime, caches: caches),
                    sessions: CustomerSessionService(
                        database: backgroundDatabase, masterKey: masterKey, lifetime: configuration.customerSessionLifetime,
                        caches: caches
                    ),
                    setupIntents: backgroundSetupIntents,
                    testClocks: backgroundTestClocks,
                    logger: logger,
                    interval: interval
                )
            )
        }
        services += [
            TestClockAdvancer(
                clocks: backgroundTestClocks, advances: caches.testClockAdvances, logger: logger,
                interval: configuration.testClockSweepInterval
            ),
            ChangeFeed(configuration: pool.configuration, caches: caches, logger: logger),
            delivery,
        ]
        self.services = services
        self.publicURL = publicURL
        self.logger = logger
        self.tlsConfiguration = try configuration.tls.map(Self.tlsConfiguration)
    }

    /// A TLS server configuration from the PEM files, or an error that names the file at fault.
    private static func tlsConfiguration(_ tls: ServerConfiguration.TLS) throws -> TLSConfiguration {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(tls.certificateChainPath)
        } catch {
            throw TLSFileError(path: tls.certificateChainPath, what: "TLS certificate chain", underlying: error)
        }
        guard !chain.isEmpty else {
            throw TLSFileError(path: tls.certificateChainPath, what: "TLS certificate chain", underlying: nil)
        }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: tls.privateKeyPath, format: .pem)
        } catch {
            throw TLSFileError(path: tls.privateKeyPath, what: "TLS private key", underlying: error)
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key)
        )
        configuration.minimumTLSVersion = .tlsv12
        // Fails here, not at the first handshake, when the key does not belong to the certificate.
        do {
            _ = try NIOSSLContext(configuration: configuration)
        } catch {
            throw TLSFileError(path: tls.privateKeyPath, what: "TLS private key (for \(tls.certificateChainPath))", underlying: error)
        }
        return configuration
    }

    /// The application to run; `onServerRunning` receives the bound port (useful with port 0).
    /// With TLS and a loopback http port, a plain http server on 127.0.0.1 runs beside it (for
    /// local tools and tests) and `onLoopbackServerRunning` receives its port.
    public func application(
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in },
        onLoopbackServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let port = configuration.port
        let configuration = self.configuration
        let publicURL = self.publicURL
        let responder = MeteredResponder(base: router.buildResponder(), metrics: httpMetrics)
        var services = self.services
        if configuration.tls != nil, let loopbackPort = configuration.tls?.loopbackHTTPPort {
            services.append(
                Application(
                    responder: responder,
                    server: Self.server(readTimeout: configuration.readTimeout, tls: nil),
                    configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: loopbackPort), serverName: nil),
                    onServerRunning: { channel in await onLoopbackServerRunning(channel.localAddress?.port ?? loopbackPort) },
                    logger: logger
                )
            )
        }
        return Application(
            responder: responder,
            server: Self.server(readTimeout: configuration.readTimeout, tls: tlsConfiguration),
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port),
                serverName: nil
            ),
            services: services,
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? port
                publicURL.set(configuration.resolvedPublicURL(boundPort: bound))
                await onServerRunning(bound)
            },
            logger: logger
        )
    }

    /// HTTP/1.1, over TLS when configured, each connection served on its own event loop.
    private static func server(readTimeout: Int, tls: TLSConfiguration?) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            let http = HTTP1Channel(
                responder: responder,
                configuration: .init(additionalChannelHandlers: [RequestReadTimeoutHandler(seconds: readTimeout)])
            )
            guard let tls else { return ConnectionLoopChildChannel(base: http) }
            return ConnectionLoopChildChannel(base: try TLSChannel(http, tlsConfiguration: tls))
        }
    }
}

/// How webhook deliveries reach the network: the system's resolver and trust roots in `purse
/// serve`. Tests substitute a scripted resolver and their own certificate authority; nothing
/// turns certificate checks off.
package struct WebhookNetwork: Sendable {
    package var resolver: any HostResolver
    package var trustRoots: NIOSSLTrustRoots

    package init(resolver: any HostResolver, trustRoots: NIOSSLTrustRoots = .default) {
        self.resolver = resolver
        self.trustRoots = trustRoots
    }

    package static var system: WebhookNetwork { WebhookNetwork(resolver: SystemHostResolver()) }
}

/// A certificate or key file `purse serve` cannot use.
public struct TLSFileError: Error, CustomStringConvertible {
    public let path: String
    public let what: String
    public let underlying: (any Error)?

    public var description: String {
        "Cannot use \(path) as the \(what)" + (underlying.map { ": \($0)" } ?? ": it holds no PEM certificate.")
    }
}
