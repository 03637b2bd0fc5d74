public import PurseModels

/// What the customer portal's pages do for the one customer of a session: show the saved
/// methods as the sheet settings filter them, add one through a setup intent (3D Secure and
/// declines as the API has them), make one the default, remove one, and finish a session's flow.
/// Each action goes through the same services, rules and events as the API's.
public struct BillingPortalPages: Sendable {
    private let database: any Database
    private let secrets: DerivedSecrets
    private let publicURL: PublicURL
    private let setupIntents: SetupIntentService
    private let paymentMethods: PaymentMethodService
    private let selection: SelectedOptionService
    private let sheetSettings: SheetSettingsService

    public init(
        database: any Database, masterKey: MasterKey, publicURL: PublicURL, setupIntents: SetupIntentService,
        paymentMethods: PaymentMethodService, selection: SelectedOptionService, sheetSettings: SheetSettingsService
    ) {
        self.database = database
        self.secrets = DerivedSecrets(masterKey: masterKey)
        self.publicURL = publicURL
        self.setupIntents = setupIntents
        self.paymentMethods = paymentMethods
        self.selection = selection
        self.sheetSettings = sheetSettings
    }

    /// An open session, as one request to its pages sees it.
    public struct Visit: Sendable {
        public let session: BillingPortalSession
        public let configuration: BillingPortalConfiguration
        /// The merchant's name (the account's), which the return link and a mandate name.
        public let merchantName: String
        /// The customer's credential on these pages.
        public let caller: Credential
        /// The page's own URL (`session.url`).
        public let url: String
        /// The token every form of the session carries.
        public let formToken: String
        public let settings: CustomerSheetSettings
        public let methods: [PaymentMethod]
        public let defaultMethod: String?
        /// Whether the session opened on a flow that is not finished yet.
        public let isFlowPending: Bool

        /// Whether the customer may add, remove and choose methods here.
        public var canUpdate: Bool { configuration.features.paymentMethodUpdate.enabled }

        /// The types the add form offers: the sheet settings' card and SEPA Direct Debit (a US
        /// bank account is linked through Financial Connections, which the mobile sheets serve).
        public var addableTypes: [PaymentMethodType] {
            [.card, .sepaDebit].filter { settings.paymentMethodTypes.contains($0.rawValue) }
        }

        /// Whether `method` may be removed here: not the default while another method remains,
        /// so the customer always keeps a default once there is one.
        public func canRemove(_ method: PaymentMethod) -> Bool {
            canUpdate && (method.id != defaultMethod || methods.count == 1)
        }
    }

    /// Opens session `id` when `token` is its URL's and it is still open; records the visit.
    public func visit(_ id: String, token: String) async throws -> Visit {
        guard ObjectID.isWellFormed(id, prefix: .billingPortalSession), secrets.isPortalSessionToken(token, session: id) else {
            throw Self.closed
        }
        return try await open(id)
    }

    /// Opens session `id` for the browser coming back from authenticating `setupIntent`, which
    /// carries the return cookie set when it left (``Addition/needsAuthentication(url:setupIntent:returnToken:)``).
    public func visit(_ id: String, returningFrom setupIntent: String, makeDefault: Bool, returnToken: String) async throws -> Visit {
        guard ObjectID.isWellFormed(id, prefix: .billingPortalSession),
            secrets.isPortalReturnToken(returnToken, session: id, setupIntent: setupIntent, makeDefault: makeDefault)
        else { throw Self.closed }
        return try await open(id)
    }

    private func open(_ id: String) async throws -> Visit {
        let found = try await database.transaction { repositories -> (StoredPortalSession, BillingPortalConfiguration, Account)? in
            guard
                let stored = try await repositories.billingPortal.visitSession(id, now: Clock.now, lifetime: .standard),
                let configuration = try await repositories.billingPortal.findConfiguration(
                    stored.session.configuration, account: stored.accountID, lock: false
                ),
                let account = try await repositories.accounts.find(stored.accountID)
            else { return nil }
            return (stored, configuration, account)
        }
        guard let (stored, configuration, account) = found else { throw Self.closed }
        var session = stored.session
        session.url = BillingPortalService.url(of: id, base: publicURL.base, secrets: secrets)
        let caller = Credential(
            kind: .billingPortal, accountID: stored.accountID, customerID: session.customer, sourceID: session.id,
            session: SessionPermissions(
                canRemove: configuration.features.paymentMethodUpdate.enabled, canRemoveLast: true,
                allowRedisplayFilters: Self.shownRedisplay
            ),
            clockTime: stored.customerClockTime
        )
        let settings = try await sheetSettings.inForce(for: caller).settings
        let shown = try await paymentMethods.sheetMethods(
            customer: session.customer, allowRedisplay: Self.shownRedisplay, settings: settings, by: caller
        )
        return Visit(
            session: session, configuration: configuration, merchantName: account.name, caller: caller, url: session.url ?? "",
            formToken: secrets.portalFormToken(id), settings: settings, methods: shown.methods, defaultMethod: shown.defaultMethod,
            isFlowPending: session.flow != nil && stored.completedAt == nil
        )
    }

    /// Whether a form's `csrf_token` is the session's.
    public func isFormToken(_ candidate: String, of visit: Visit) -> Bool {
        secrets.isPortalFormToken(candidate, session: visit.session.id)
    }

    /// Where an addition stands once the customer submitted the form.
    public enum Addition: Sendable {
        /// Saved (and made the default when asked).
        case saved(paymentMethod: String)
        /// The bank wants the customer to authenticate: send them to `url` first, with
        /// `returnToken` in a cookie, for they come back to
        /// ``finishAddition(setupIntent:makeDefault:in:request:)`` through a URL without the
        /// session's token (the intent keeps its `return_url`).
        case needsAuthentication(url: String, setupIntent: String, returnToken: String)
    }

    /// Saves the method in `confirmation` for the customer through a new setup intent of type
    /// `type`. A decline or an invalid input throws, as the API's confirmation does.
    public func add(
        _ type: PaymentMethodType, _ confirmation: SetupIntentConfirmParameters, makeDefault: Bool, in visit: Visit,
        request: RequestInfo
    ) async throws -> Addition {
        try requireUpdates(visit)
        var creation = SetupIntentCreateParameters()
        creation.customer = visit.session.customer
        creation.paymentMethodTypes = [type]
        let intent = try await setupIntents.create(creation, by: visit.caller, request: request)
        var confirmation = confirmation
        confirmation.returnURL =
            Self.returnURL(base: publicURL.base, session: visit.session.id, setupIntent: intent.id)
            + (makeDefault ? "?make_default=true" : "")
        let confirmed = try await setupIntents.confirm(intent.id, confirmation, by: visit.caller, request: request)
        if confirmed.status == .requiresAction, let url = confirmed.nextAction?.redirectToURL?.url {
            let returnToken = secrets.portalReturnToken(session: visit.session.id, setupIntent: intent.id, makeDefault: makeDefault)
            return .needsAuthentication(url: url, setupIntent: intent.id, returnToken: returnToken)
        }
        guard confirmed.status == .succeeded, let method = confirmed.paymentMethod else {
            throw PurseError(.invalidRequest, code: "setup_intent_unexpected_state", message: "The payment method could not be saved.")
        }
        try await finish(method, makeDefault: makeDefault, in: visit, request: request)
        return .saved(paymentMethod: method)
    }

    /// The customer is back from authenticating setup intent `id`: the method when it was
    /// saved (made the default when asked), or the error that ended the attempt.
    public func finishAddition(
        setupIntent id: String, makeDefault: Bool, in visit: Visit, request: RequestInfo
    ) async throws -> Result<String, PurseError> {
        let intent = try await setupIntents.retrieve(id, clientSecret: nil, by: visit.caller)
        guard intent.customer == visit.session.customer else { throw PurseError.noSuch("setupintent", id) }
        switch intent.status {
        case .succeeded:
            guard let method = intent.paymentMethod else { throw PurseError.noSuch("setupintent", id) }
            try await finish(method, makeDefault: makeDefault, in: visit, request: request)
            return .success(method)
        case .requiresAction:
            throw PurseError(.invalidRequest, code: "setup_intent_unexpected_state", message: "Authentication is not finished yet.")
        default:
            let message = intent.lastSetupError?.message ?? "The payment method could not be saved."
            return .failure(PurseError(.card, code: intent.lastSetupError?.code, message: message))
        }
    }

    public func setDefault(_ method: String, in visit: Visit, request: RequestInfo) async throws {
        try requireUpdates(visit)
        try requireShown(method, in: visit)
        _ = try await selection.select(.set(method), customer: visit.session.customer, by: visit.caller, request: request, param: "payment_method")
    }

    public func remove(_ method: String, in visit: Visit, request: RequestInfo) async throws {
        try requireUpdates(visit)
        let shown = try requireShown(method, in: visit)
        guard visit.canRemove(shown) else {
            throw PurseError(.invalidRequest, code: "default_payment_method_required", message: "Make another method the default first.")
        }
        _ = try await paymentMethods.detach(method, by: visit.caller, request: request)
    }

    /// After a save: the default when asked (always in a flow, as Stripe's
    /// `payment_method_update` flow does), and the flow marked completed.
    private func finish(_ method: String, makeDefault: Bool, in visit: Visit, request: RequestInfo) async throws {
        if makeDefault || visit.isFlowPending {
            _ = try await selection.select(
                .set(method), customer: visit.session.customer, by: visit.caller, request: request, param: "payment_method")
        }
        if visit.isFlowPending {
            let (id, account) = (visit.session.id, visit.caller.accountID)
            try await database.autocommit { try await $0.billingPortal.completeSession(id, account: account, now: Clock.now) }
        }
    }

    private func requireUpdates(_ visit: Visit) throws {
        guard visit.canUpdate else {
            throw PurseError(.permission, message: "This portal's configuration does not allow changing payment methods.")
        }
    }

    /// A method the page shows: what is not (another customer's, a filtered one) is not found.
    @discardableResult
    private func requireShown(_ method: String, in visit: Visit) throws -> PaymentMethod {
        guard let shown = visit.methods.first(where: { $0.id == method }) else { throw PurseError.noSuch("PaymentMethod", method) }
        return shown
    }

    /// Where the authentication page sends the customer back: no token in it, as it is stored.
    public static func returnURL(base: String, session: String, setupIntent: String) -> String {
        "\(base)/p/session/\(session)/return/\(setupIntent)"
    }

    /// The page shows every saved method, whatever its `allow_redisplay` (which is about
    /// checkout forms), within the sheet settings' own filter.
    static let shownRedisplay = ["always", "limited", "unspecified"]

    /// The one answer for a session that is unknown, revoked, expired, or whose token is wrong.
    static let closed = PurseError.noSuch("portal session", "link")
}
