import PurseModels
import Testing

@testable import PurseCore

/// The real services of one account over an ``InMemoryDatabase``, with the test processor: what
/// the server builds in `PurseApplication`, without PostgreSQL.
struct DomainHarness {
    let database = InMemoryDatabase()
    let account = "acct_inmemory"
    let masterKey = MasterKey.generate()
    let request = RequestInfo(id: "req_inmemory", idempotencyKey: nil, apiVersion: RequestInfo.defaultAPIVersion)
    let caches = ChangeCaches()

    let sheetSettings: SheetSettingsService
    let paymentMethods: PaymentMethodService
    let customers: CustomerService
    let selection: SelectedOptionService
    let setupIntents: SetupIntentService
    let financialConnections: FinancialConnectionsService
    let events: EventService
    let accounts: AccountService
    let ephemeralKeys: EphemeralKeyService
    let idempotency: IdempotencyService
    /// Retries after 60 s, then every 300 s, for up to 3 days.
    let webhookQueue: WebhookDeliveryQueue
    let portal: BillingPortalService
    let portalPages: BillingPortalPages
    let testClocks: TestClockService

    /// The account's secret key.
    var secret: Credential { Credential(kind: .secret, accountID: account, sourceID: "sk_inmemory") }
    var publishable: Credential { Credential(kind: .publishable, accountID: account, sourceID: "pk_inmemory") }

    private init() {
        let processor = TestProcessor()
        sheetSettings = SheetSettingsService(database: database, caches: caches)
        paymentMethods = PaymentMethodService(database: database, processor: processor, masterKey: masterKey, caches: caches)
        customers = CustomerService(database: database, paymentMethods: paymentMethods, caches: caches)
        selection = SelectedOptionService(database: database)
        setupIntents = SetupIntentService(
            database: database, processor: processor, masterKey: masterKey, publicURL: PublicURL("http://purse.test"), caches: caches
        )
        financialConnections = FinancialConnectionsService(
            database: database, processor: processor, masterKey: masterKey, publicURL: PublicURL("http://purse.test")
        )
        events = EventService(database: database, masterKey: masterKey)
        accounts = AccountService(database: database)
        ephemeralKeys = EphemeralKeyService(database: database, lifetime: 3600, caches: caches)
        idempotency = IdempotencyService(database: database, masterKey: masterKey)
        webhookQueue = WebhookDeliveryQueue(
            database: database, masterKey: masterKey, retrySchedule: [60, 300], giveUpAfter: 3 * 86_400, attemptTimeout: .seconds(5)
        )
        portal = BillingPortalService(database: database, masterKey: masterKey, publicURL: PublicURL("http://purse.test"))
        testClocks = TestClockService(database: database, caches: caches, setupIntents: setupIntents)
        portalPages = BillingPortalPages(
            database: database, masterKey: masterKey, publicURL: PublicURL("http://purse.test"), setupIntents: setupIntents,
            paymentMethods: paymentMethods, selection: selection, sheetSettings: sheetSettings
        )
    }

    /// An account as `accounts create` leaves it: with its default sheet settings.
    static func make() async throws -> DomainHarness {
        let harness = DomainHarness()
        let account = harness.account
        try await harness.database.transaction { repositories in
            try await repositories.accounts.insert(
                Account(id: account, name: "In memory", created: Clock.now, isDevelopment: false), ifMissing: false)
            try await SheetSettingsService.createDefault(account: account, in: repositories)
        }
        return harness
    }

    // MARK: - Credentials

    /// An ephemeral key of `customer`, created with `settings` (nil: the default).
    func ephemeralKey(_ customer: String, settings: String? = nil) -> Credential {
        Credential(kind: .ephemeralKey, accountID: account, customerID: customer, sourceID: "ek_inmemory", sheetSettingsID: settings)
    }

    /// A customer session's key with the customer sheet's remove features.
    func session(_ customer: String, remove: Bool, removeLast: Bool) -> Credential {
        let features = CustomerSheetFeatures(
            allowRedisplayFilters: ["always"], remove: remove ? "enabled" : "disabled", removeLast: removeLast ? "enabled" : "disabled",
            syncDefault: "disabled"
        )
        let components = CustomerSessionComponents(
            buyButton: .init(enabled: false), customerSheet: .init(enabled: true, features: features),
            mobilePaymentElement: .init(enabled: false, features: nil), paymentElement: .init(enabled: false, features: nil),
            pricingTable: .init(enabled: false)
        )
        return Credential(
            kind: .customerSession, accountID: account, customerID: customer, sourceID: "cuss_inmemory",
            session: SessionPermissions(components)
        )
    }

    // MARK: - Setting things up

    /// A new customer's id.
    func customer(
        email: String? = nil, paymentMethod: String? = nil, defaultMethod: String? = nil, testClock: String? = nil
    ) async throws -> String {
        var params = CustomerCreateParameters()
        params.email = email
        params.testClock = testClock
        params.paymentMethod = paymentMethod
        if let defaultMethod { params.invoiceSettings = InvoiceSettingsParameters(defaultPaymentMethod: .set(defaultMethod)) }
        let rendered = try await customers.create(params, by: secret, request: request)
        return try #require(try JSONReader.parse(rendered.bytes)["id"]?.stringValue)
    }

    /// A setup intent made with the secret key: for `customer`, with `method`, these types and
    /// these `payment_method_options` when given.
    func setupIntent(
        customer: String? = nil, method: String? = nil, types: [PaymentMethodType]? = nil,
        options: PaymentMethodOptionsParameters? = nil
    ) async throws -> SetupIntent {
        var params = SetupIntentCreateParameters()
        params.customer = customer
        params.paymentMethod = method
        params.paymentMethodTypes = types
        params.paymentMethodOptions = options
        return try await setupIntents.create(params, by: secret, request: request)
    }

    /// A new, unattached card.
    func card(
        _ number: String = "4242424242424242", expYear: Int = 2040, expMonth: Int = 12, redisplay: AllowRedisplay? = nil,
        by caller: Credential? = nil, billing: BillingDetailsParameters? = nil
    ) async throws -> PaymentMethod {
        var params = PaymentMethodCreateParameters(type: .card)
        params.card = CardParameters(number: number, expMonth: expMonth, expYear: expYear, cvc: "123")
        params.allowRedisplay = redisplay
        params.billingDetails = billing
        return try await paymentMethods.create(params, by: caller ?? secret)
    }

    /// A card attached to `customer` (a test token, or an id).
    @discardableResult
    func attach(_ method: String = "pm_card_visa", to customer: String, by caller: Credential? = nil) async throws -> PaymentMethod {
        try await paymentMethods.attach(method, to: customer, by: caller ?? secret, request: request)
    }

    func setDefault(_ method: String?, of customer: String) async throws -> Customer {
        var params = CustomerUpdateParameters()
        params.invoiceSettings = InvoiceSettingsParameters(defaultPaymentMethod: method.map { .set($0) } ?? .clear)
        return try await customers.update(customer, params, by: secret, request: request)
    }

    func currentCustomer(_ id: String) async throws -> Customer {
        guard case .active(let customer) = try await customers.retrieve(id, by: secret) else { throw HarnessError.notLive }
        return customer
    }

    /// The ids of a customer's attached methods as `GET /v1/payment_methods` lists them.
    func listed(
        _ customer: String, by caller: Credential? = nil, limit: Int? = 100, after: String? = nil, before: String? = nil
    ) async throws -> (ids: [String], hasMore: Bool) {
        let params = PaymentMethodListParameters(
            customer: customer, type: nil, allowRedisplay: nil, limit: limit, startingAfter: after, endingBefore: before
        )
        let page = try await paymentMethods.list(params, by: caller ?? secret)
        let ids = try page.data.map { try #require(try JSONReader.parse($0.bytes)["id"]?.stringValue) }
        return (ids, page.hasMore)
    }

    /// Updates the account's default settings.
    @discardableResult
    func updateDefaultSettings(_ params: SheetSettingsParameters) async throws -> CustomerSheetSettings {
        try await sheetSettings.update("default", params, by: secret)
    }

    /// Makes a stored card expired (January 2020), as time would; no request can.
    func expire(_ method: String) async throws {
        let account = account
        try await database.transaction { repositories in
            var model = try #require(try await repositories.paymentMethods.find(method, visibleTo: Visibility(account: account), lock: true)).model
            model.card?.expMonth = 1
            model.card?.expYear = 2020
            try await repositories.paymentMethods.update(model, account: account)
        }
    }

    /// Attaches `count` new Visa cards to `customer` straight through the repository.
    func seedAttachedCards(_ count: Int, to customer: String) async throws {
        let factory = PaymentMethodFactory(processor: TestProcessor(), fingerprinter: Fingerprinter(masterKey: masterKey))
        let account = account
        let methods = try (0..<count).map { _ in try #require(try factory.make(token: "pm_card_visa", account: account)) }
        try await database.transaction { repositories in
            for method in methods { try await repositories.paymentMethods.insert(method, account: account, customer: customer) }
        }
    }

    // MARK: - Looking at what happened

    /// The types of the events recorded so far, oldest first.
    func eventTypes() async -> [String] {
        await database.recordedEvents().map(\.type)
    }

    /// The types of the events `body` recorded, oldest first.
    func eventTypes(of body: () async throws -> Void) async rethrows -> [String] {
        let before = await database.recordedEvents().count
        try await body()
        return Array(await eventTypes().dropFirst(before))
    }

    /// The authentication page's token from a `requires_action` intent's next action.
    static func authenticationToken(_ intent: SetupIntent) throws -> String {
        let url = try #require(intent.nextAction?.redirectToURL?.url)
        return try #require(url.split(separator: "/").last.map(String.init))
    }
}

enum HarnessError: Error { case notLive }

extension SheetSettingsParameters {
    /// Settings whose saved-method filter is `filter` and nothing else.
    static func filter(
        funding: [Funding]? = nil, brands: [CardBrandName]? = nil, hideExpired: Bool? = nil, allowRedisplay: [AllowRedisplay]? = nil,
        countries: [String]? = nil
    ) -> SheetSettingsParameters {
        var params = SheetSettingsParameters()
        let card =
            funding == nil && brands == nil ? nil : CardFilter(funding: funding.map { .set($0) }, brands: brands.map { .set($0) })
        params.savedPaymentMethodFilter = .set(
            Filter(
                card: card.map { .set($0) }, hideExpired: hideExpired.map { .set($0) }, allowRedisplay: allowRedisplay.map { .set($0) },
                countries: countries.map { .set($0) }
            )
        )
        return params
    }
}

extension MandateDataParameters {
    /// An online acceptance with the customer's address and browser.
    static let online = MandateDataParameters(
        customerAcceptance: .init(
            type: .online, acceptedAt: nil, online: .init(ipAddress: "192.0.2.1", userAgent: "InMemoryTests", inferFromClient: nil),
            offline: nil
        )
    )
}
