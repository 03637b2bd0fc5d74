public import Hummingbird
import HummingbirdCore
public import Logging
public import Postgres
public import PurseCore
import ServiceLifecycle

/// The HTTP API: its router, middleware, controllers and background services.
public struct PurseApplication {
    /// A route the API serves, as the OpenAPI document should list it.
    public struct RouteDescription: Sendable, Hashable {
        public let method: String
        public let path: String
    }

    public let routes: [RouteDescription]
    /// Where this application's metrics are kept (served at `GET /metrics`). Each application
    /// has its own; none is installed as swift-metrics' global factory.
    public let metrics: PrometheusRegistry
    private let configuration: ServerConfiguration
    private let router: Router<PurseRequestContext>
    private let httpMetrics: HTTPMetrics
    private let services: [any Service]
    private let logger: Logger
    private let publicURL: PublicURL

    public init(
        configuration: ServerConfiguration,
        pool: PostgresClient,
        masterKey: MasterKey,
        logger: Logger
    ) throws {
        let router = Router(context: PurseRequestContext.self)
        router.add(middleware: ResponseMiddleware())

        let processor = TestProcessor()
        let publicURL = PublicURL(configuration.resolvedPublicURL(boundPort: configuration.port))
        let caches = ChangeCaches()
        let paymentMethods = PaymentMethodService(pool: pool, processor: processor, masterKey: masterKey, caches: caches)
        // Background work (webhook delivery, sweeps) has connections of its own, so it can never
        // hold the ones requests need.
        var backgroundSettings = pool.configuration
        backgroundSettings.set("application_name", "purse-background")
        let background = PostgresClient(
            configuration: backgroundSettings, options: .init(maxConnections: 2, checkoutTimeout: pool.options.checkoutTimeout)
        )
        let customers = CustomerService(pool: pool, paymentMethods: paymentMethods, caches: caches)
        let idempotency = IdempotencyStore(pool: pool, masterKey: masterKey)
        let metrics = PrometheusRegistry()
        let api = APIRouter(
            router: router,
            authenticator: Authenticator(pool: pool, caches: caches),
            idempotency: idempotency,
            loader: ObjectLoader(customers: customers, paymentMethods: paymentMethods),
            maxBodySize: configuration.maxBodySize,
            rateLimiter: configuration.rateLimit.map(RateLimiter.init),
            ignoredParameters: IgnoredParameters(registry: metrics)
        )
        let health = HealthController(health: try DatabaseHealth(pool: pool))
        api.raw(.get, "/healthz", health.healthz)
        api.raw(.get, "/readyz", health.readyz)
        let deliveryStore = WebhookDeliveryStore(
            pool: background, masterKey: masterKey, retrySchedule: configuration.webhooks.retrySchedule,
            giveUpAfter: configuration.webhooks.giveUpAfter, attemptTimeout: configuration.webhooks.timeout
        )
        let backlog = SharedRead { try await deliveryStore.backlog() }
        api.raw(.get, "/metrics", MetricsController(registry: metrics, pool: pool, backlog: backlog, caches: caches).metrics)
        OpenAPIController.register(on: api)
        CustomersController(customers: customers).register(on: api)
        let selection = SelectedOptionService(pool: pool)
        PaymentMethodsController(paymentMethods: paymentMethods, selection: selection).register(on: api)
        let ephemeralKeys = EphemeralKeyService(pool: pool, lifetime: configuration.ephemeralKeyLifetime, caches: caches)
        EphemeralKeysController(ephemeralKeys: ephemeralKeys).register(on: api)
        let setupIntents = SetupIntentService(
            pool: pool, processor: processor, masterKey: masterKey, publicURL: publicURL, caches: caches
        )
        SetupIntentsController(setupIntents: setupIntents).register(on: api)
        AuthenticationPageController(setupIntents: setupIntents).register(on: api)
        let sessions = CustomerSessionService(
            pool: pool, masterKey: masterKey, lifetime: configuration.customerSessionLifetime, caches: caches
        )
        CustomerSessionsController(sessions: sessions).register(on: api)
        let sheetSettings = SheetSettingsService(pool: pool, caches: caches)
        SheetSettingsController(settings: sheetSettings).register(on: api)
        ElementsController(
            elements: ElementsSessionService(
                setupIntents: setupIntents, sessions: sessions, paymentMethods: paymentMethods, sheetSettings: sheetSettings
            ),
            sessions: sessions, paymentMethods: paymentMethods, selection: selection, customers: customers
        ).register(on: api)
        EventsController(events: EventService(pool: pool, masterKey: masterKey)).register(on: api)
        WebhookEndpointsController(
            endpoints: WebhookEndpointService(pool: pool, masterKey: masterKey, requireHTTPS: configuration.webhooks.requireHTTPS)
        ).register(on: api)
        let delivery = WebhookDeliveryService(
            store: deliveryStore,
            transport: WebhookTransport(timeout: configuration.webhooks.timeout), logger: logger,
            pollInterval: configuration.webhooks.pollInterval
        )

        self.routes = api.routes.map { RouteDescription(method: $0.method.rawValue, path: $0.path) }
        self.metrics = metrics
        self.httpMetrics = HTTPMetrics(routes: api.routes.map { ($0.method, $0.path) }, registry: metrics)
        self.configuration = configuration
        self.router = router
        // Shut down in reverse order, each after the one before it finished, and the HTTP server
        // first: webhook delivery comes right after it, so a stopping server takes no new
        // deliveries while the services before it wind down (they stay for the next server).
        self.services = [
            pool,
            background,
            MaintenanceService(
                idempotency: IdempotencyStore(pool: background, masterKey: masterKey),
                ephemeralKeys: EphemeralKeyService(pool: background, lifetime: configuration.ephemeralKeyLifetime, caches: caches),
                sessions: CustomerSessionService(
                    pool: background, masterKey: masterKey, lifetime: configuration.customerSessionLifetime, caches: caches
                ),
                setupIntents: SetupIntentService(
                    pool: background, processor: processor, masterKey: masterKey, publicURL: publicURL, caches: caches
                ),
                logger: logger
            ),
            ChangeFeed(configuration: pool.configuration, caches: caches, logger: logger),
            delivery,
        ]
        self.publicURL = publicURL
        self.logger = logger
    }

    /// The application to run; `onServerRunning` receives the bound port (useful with port 0).
    public func application(
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let port = configuration.port
        let configuration = self.configuration
        let publicURL = self.publicURL
        return Application(
            responder: MeteredResponder(base: router.buildResponder(), metrics: httpMetrics),
            server: HTTPServerBuilder { responder in
                ConnectionLoopChildChannel(
                    base: HTTP1Channel(
                        responder: responder,
                        configuration: .init(additionalChannelHandlers: [RequestReadTimeoutHandler(seconds: configuration.readTimeout)])
                    )
                )
            },
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
}
