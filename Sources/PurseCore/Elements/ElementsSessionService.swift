public import PurseModels

/// `GET /v1/elements/sessions` with the publishable key: what the mobile sheets load before they
/// show anything (the types to offer, the setup intent, the customer's saved methods).
///
/// What the sheets send that means something is honoured: the setup intent's `client_secret` or
/// the `deferred_intent`'s types, `customer_session_client_secret` (the session's customer and key),
/// `legacy_customer_ephemeral_key` (PaymentSheet's ephemeral-key customer), `client_default_payment_method`
/// (the device's own default) and stripe-ios's mobile-session contract header. The replays in
/// Tests/compat (docs/replays/) name the SDK sources each comes from.
public struct ElementsSessionService: Sendable {
    private let setupIntents: SetupIntentService
    private let sessions: CustomerSessionService
    private let paymentMethods: PaymentMethodService
    private let sheetSettings: SheetSettingsService
    private let authenticator: Authenticator

    /// The country Purse reports for the merchant and for payment method preference.
    public static let merchantCountry = "US"

    /// Stripe's card brand choice: co-badged cards (Cartes Bancaires with Visa or Mastercard) let
    /// their holder pick the network; the test processor has such cards (TestInstruments).
    static let cardBrandChoice: JSONValue = [
        "eligible": true, "preferred_networks": ["cartes_bancaires"], "supported_cobranded_networks": ["cartes_bancaires": true],
    ]

    public init(
        setupIntents: SetupIntentService, sessions: CustomerSessionService, paymentMethods: PaymentMethodService,
        sheetSettings: SheetSettingsService, authenticator: Authenticator
    ) {
        self.setupIntents = setupIntents
        self.sessions = sessions
        self.paymentMethods = paymentMethods
        self.sheetSettings = sheetSettings
        self.authenticator = authenticator
    }

    public struct Parameters: Decodable, Sendable {
        public enum Kind: String, Sendable, CaseIterable, ParameterEnum {
            case setupIntent = "setup_intent"
            case deferredIntent = "deferred_intent"
        }

        public var type: Kind
        public var clientSecret: String?
        public var deferredIntent: DeferredIntent?
        public var customerSessionClientSecret: String?
        /// PaymentSheet's customer by ephemeral key (`PaymentSheet.CustomerConfiguration` without a session).
        public var legacyCustomerEphemeralKey: String?
        /// The payment method the device keeps as its own default.
        public var clientDefaultPaymentMethod: String?

        enum CodingKeys: String, CodingKey {
            case type
            case clientSecret = "client_secret"
            case deferredIntent = "deferred_intent"
            case customerSessionClientSecret = "customer_session_client_secret"
            case legacyCustomerEphemeralKey = "legacy_customer_ephemeral_key"
            case clientDefaultPaymentMethod = "client_default_payment_method"
        }
    }

    public struct DeferredIntent: Decodable, Sendable {
        public enum Mode: String, Sendable, CaseIterable, ParameterEnum { case setup, payment }

        public var mode: Mode
        public var paymentMethodTypes: [String]?

        enum CodingKeys: String, CodingKey {
            case mode
            case paymentMethodTypes = "payment_method_types"
        }
    }

    public func session(
        _ params: Parameters, contract: MobileSessionContract? = nil, by caller: Credential
    ) async throws -> ElementsSession {
        let publishable = Credential(kind: .publishable, accountID: caller.accountID, sourceID: caller.sourceID)
        var requested: [String]
        var setupIntentView: JSONValue?
        var settingsName: String?
        switch params.type {
        case .setupIntent:
            guard let clientSecret = params.clientSecret else { throw PurseError.missingParameter("client_secret") }
            guard let range = clientSecret.range(of: "_secret_") else {
                throw PurseError.invalidParameter("client_secret", "Invalid client_secret: expected seti_..._secret_...")
            }
            let id = String(clientSecret[..<range.lowerBound])
            let intent: SetupIntent
            do {
                intent = try await setupIntents.retrieve(id, clientSecret: clientSecret, by: publishable)
            } catch let error as PurseError where error.category == .notFound {
                throw PurseError.noSuch("setupintent", id, param: "client_secret")
            }
            settingsName = intent.customerSheetSettings
            setupIntentView = try intent.json(for: publishable)
            requested = intent.paymentMethodTypes
        case .deferredIntent:
            guard let deferred = params.deferredIntent else { throw PurseError.missingParameter("deferred_intent") }
            requested = deferred.paymentMethodTypes ?? ["card"]
        }

        // Whose sheet this is: a customer session's customer, or PaymentSheet's ephemeral key's.
        var claimedSession: (session: CustomerSession, elementsView: JSONValue, clockTime: Int?)?
        var legacyCustomer: Credential?
        if let clientSecret = params.customerSessionClientSecret {
            let claimed = try await sessions.resolve(clientSecret: clientSecret, account: caller.accountID)
            settingsName = claimed.session.customerSheetSettings ?? settingsName
            claimedSession = claimed
        } else if let key = params.legacyCustomerEphemeralKey {
            let credential = try await legacyCustomerKey(key, account: caller.accountID)
            settingsName = credential.sheetSettingsID ?? settingsName
            legacyCustomer = credential
        }
        let inForce = try await sheetSettings.inForce(for: caller, named: settingsName)
        let settings = inForce.settings

        let offer = Self.offer(requested: requested, settings: settings)
        var elements = ElementsSession(
            sessionID: "elements_session_" + ObjectID.randomBase62(length: 12),
            paymentMethodPreference: .init(
                countryCode: Self.merchantCountry, orderedPaymentMethodTypes: offer.offered, type: params.type.rawValue,
                setupIntent: setupIntentView
            ),
            unactivatedPaymentMethodTypes: offer.withheld.map(\.type), merchantCountry: Self.merchantCountry
        )
        elements.cardBrandChoice = Self.cardBrandChoice
        elements.mobilePaymentElement = contract?.mobilePaymentElement(offered: offer.offered, withheld: offer.withheld)
        elements.customerSheetSettings = inForce.json
        if let claimedSession {
            elements.customer = try await sessionCustomer(
                claimedSession.session, view: claimedSession.elementsView, clockTime: claimedSession.clockTime, settings: settings,
                clientDefault: params.clientDefaultPaymentMethod, by: caller
            )
        } else if let legacyCustomer, let customer = legacyCustomer.customerID {
            elements.customer = try await self.legacyCustomer(
                customer, clockTime: legacyCustomer.clockTime, settings: settings, clientDefault: params.clientDefaultPaymentMethod,
                by: caller
            )
        }
        return elements
    }

    /// The requested types the sheet may offer (saved by Purse, allowed by the sheet settings in
    /// force), in the requested order; the others with why.
    static func offer(
        requested: [String], settings: CustomerSheetSettings
    ) -> (offered: [String], withheld: [(type: String, reason: String)]) {
        var offered: [String] = []
        var withheld: [(type: String, reason: String)] = []
        for type in requested where !offered.contains(type) && !withheld.contains(where: { $0.type == type }) {
            if PaymentMethodType(rawValue: type) == nil {
                withheld.append((type, "unactivated"))
            } else if !settings.paymentMethodTypes.contains(type) {
                withheld.append((type, "not_in_customer_sheet_settings"))
            } else {
                offered.append(type)
            }
        }
        return (offered, withheld)
    }

    /// `legacy_customer_ephemeral_key`: a live ephemeral key of this account, whose customer the
    /// session then shows (its sheet settings apply). Anything else is refused as Stripe refuses
    /// a bad key, naming the parameter.
    private func legacyCustomerKey(_ key: String, account: String) async throws -> Credential {
        let credential: Credential
        do {
            credential = try await authenticator.authenticate(key)
        } catch let error as PurseError where error.category == .authentication {
            throw PurseError.invalidParameter("legacy_customer_ephemeral_key", error.message)
        }
        guard credential.kind == .ephemeralKey, credential.accountID == account else {
            throw PurseError.invalidParameter(
                "legacy_customer_ephemeral_key", "The legacy_customer_ephemeral_key must be an ephemeral key (ek_test_...) of this account."
            )
        }
        return credential
    }

    /// `customer` for a customer session: the methods the sheet shows (through the session's
    /// redisplay filters and the sheet settings' filter; the device's own default is shown
    /// whatever its redisplay setting), the server's default, and the session (`view`) with its
    /// key (derived, the same on every call, expiring with the session).
    private func sessionCustomer(
        _ session: CustomerSession, view: JSONValue, clockTime: Int?, settings: CustomerSheetSettings, clientDefault: String?,
        by caller: Credential
    ) async throws -> JSONValue {
        let permissions = SessionPermissions(session.components)
        let shown = try await paymentMethods.sheetMethods(
            customer: session.customer, allowRedisplay: permissions.allowRedisplayFilters, alsoShowing: clientDefault,
            settings: settings, by: Credential(kind: .secret, accountID: caller.accountID, sourceID: session.id, clockTime: clockTime)
        )
        let encoder = JSONValueEncoder()
        return [
            "payment_methods": .array(try shown.methods.map { try encoder.encode($0) }),
            "default_payment_method": shown.defaultMethod.map(JSONValue.string) ?? .null,
            "customer_session": view,
        ]
    }

    /// `customer` for PaymentSheet's ephemeral key: the legacy customer object, the saved methods
    /// (every redisplay setting, through the sheet settings' filter) and the server's default,
    /// without a `customer_session`. SDKs that read the legacy object show these; current ones,
    /// which expect a session here, list the methods with the ephemeral key instead.
    private func legacyCustomer(
        _ customer: String, clockTime: Int?, settings: CustomerSheetSettings, clientDefault: String?, by caller: Credential
    ) async throws -> JSONValue {
        let shown = try await paymentMethods.sheetMethods(
            customer: customer, allowRedisplay: AllowRedisplay.allCases.map(\.rawValue), alsoShowing: clientDefault,
            settings: settings, by: Credential(kind: .secret, accountID: caller.accountID, sourceID: caller.sourceID, clockTime: clockTime)
        )
        let encoder = JSONValueEncoder()
        return [
            "payment_methods": .array(try shown.methods.map { try encoder.encode($0) }),
            "default_payment_method": shown.defaultMethod.map(JSONValue.string) ?? .null,
        ]
    }
}
