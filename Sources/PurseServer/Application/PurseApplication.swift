public import Hummingbird
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
    private let configuration: ServerConfiguration
    private let router: Router<PurseRequestContext>
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
        let paymentMethods = PaymentMethodService(pool: pool, processor: processor, masterKey: masterKey)
        let customers = CustomerService(pool: pool, paymentMethods: paymentMethods)
        let idempotency = IdempotencyStore(pool: pool, masterKey: masterKey)
        let api = APIRouter(
            router: router,
            authenticator: Authenticator(pool: pool),
            idempotency: idempotency,
            loader: ObjectLoader(customers: customers, paymentMethods: paymentMethods),
            maxBodySize: configuration.maxBodySize
        )
        let health = HealthController(health: try DatabaseHealth(pool: pool))
        api.raw(.get, "/healthz", health.healthz)
        api.raw(.get, "/readyz", health.readyz)
        OpenAPIController.register(on: api)
        CustomersController(customers: customers).register(on: api)
        let selection = SelectedOptionService(pool: pool)
        PaymentMethodsController(paymentMethods: paymentMethods, selection: selection).register(on: api)
        let ephemeralKeys = EphemeralKeyService(pool: pool, lifetime: configuration.ephemeralKeyLifetime)
        EphemeralKeysController(ephemeralKeys: ephemeralKeys).register(on: api)
        let setupIntents = SetupIntentService(pool: pool, processor: processor, masterKey: masterKey, publicURL: publicURL)
        SetupIntentsController(setupIntents: setupIntents).register(on: api)
        AuthenticationPageController(setupIntents: setupIntents).register(on: api)
        let sessions = CustomerSessionService(pool: pool, masterKey: masterKey, lifetime: configuration.customerSessionLifetime)
        CustomerSessionsController(sessions: sessions).register(on: api)
        let sheetSettings = SheetSettingsService(pool: pool)
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
            store: WebhookDeliveryStore(
                pool: pool, masterKey: masterKey, retrySchedule: configuration.webhooks.retrySchedule,
                giveUpAfter: configuration.webhooks.giveUpAfter, attemptTimeout: configuration.webhooks.timeout
            ),
            transport: WebhookTransport(timeout: configuration.webhooks.timeout), logger: logger,
            pollInterval: configuration.webhooks.pollInterval
        )

        self.routes = api.routes.map { RouteDescription(method: $0.method.rawValue, path: $0.path) }
        self.configuration = configuration
        self.router = router
        self.services = [
            pool,
            MaintenanceService(
                idempotency: idempotency, ephemeralKeys: ephemeralKeys, sessions: sessions, setupIntents: setupIntents,
                logger: logger
            ),
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
            router: router,
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
