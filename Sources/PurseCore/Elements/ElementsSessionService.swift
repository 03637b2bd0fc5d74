public import PurseModels

/// `GET /v1/elements/sessions` with the publishable key: the types to offer and, for a setup
/// intent, the intent itself.
public struct ElementsSessionService: Sendable {
    private let setupIntents: SetupIntentService
    private let sessions: CustomerSessionService
    private let paymentMethods: PaymentMethodService
    private let sheetSettings: SheetSettingsService

    /// The country Purse reports for the merchant and for payment method preference.
    public static let merchantCountry = "US"

    public init(
        setupIntents: SetupIntentService, sessions: CustomerSessionService, paymentMethods: PaymentMethodService,
        sheetSettings: SheetSettingsService
    ) {
        self.setupIntents = setupIntents
        self.sessions = sessions
        self.paymentMethods = paymentMethods
        self.sheetSettings = sheetSettings
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

        enum CodingKeys: String, CodingKey {
            case type
            case clientSecret = "client_secret"
            case deferredIntent = "deferred_intent"
            case customerSessionClientSecret = "customer_session_client_secret"
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

    public func session(_ params: Parameters, by caller: Credential) async throws -> ElementsSession {
        let preference: ElementsSession.PaymentMethodPreference
        var unactivated: [String] = []
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
                intent = try await setupIntents.retrieve(
                    id, clientSecret: clientSecret,
                    by: Credential(kind: .publishable, accountID: caller.accountID, sourceID: caller.sourceID)
                )
            } catch let error as PurseError where error.category == .notFound {
                throw PurseError.noSuch("setupintent", id, param: "client_secret")
            }
            settingsName = intent.customerSheetSettings
            let view = try intent.json(for: Credential(kind: .publishable, accountID: caller.accountID, sourceID: caller.sourceID))
            preference = .init(
                countryCode: Self.merchantCountry, orderedPaymentMethodTypes: intent.paymentMethodTypes, type: "setup_intent",
                setupIntent: view
            )
        case .deferredIntent:
            guard let deferred = params.deferredIntent else { throw PurseError.missingParameter("deferred_intent") }
            let requested = deferred.paymentMethodTypes ?? ["card"]
            let supported = Set(PaymentMethodType.allCases.map(\.rawValue))
            unactivated = requested.filter { !supported.contains($0) }
            preference = .init(
                countryCode: Self.merchantCountry, orderedPaymentMethodTypes: requested.filter(supported.contains),
                type: "deferred_intent", setupIntent: nil
            )
        }
        var elements = ElementsSession(
            sessionID: "elements_session_" + ObjectID.randomBase62(length: 12), paymentMethodPreference: preference,
            unactivatedPaymentMethodTypes: unactivated, merchantCountry: Self.merchantCountry
        )
        if let clientSecret = params.customerSessionClientSecret {
            let (session, apiKey) = try await sessions.resolve(clientSecret: clientSecret, account: caller.accountID)
            settingsName = session.customerSheetSettings ?? settingsName
            let settings = try await sheetSettings.inForce(for: caller, named: settingsName)
            elements.customer = try await customer(session, apiKey: apiKey, settings: settings, by: caller)
            elements.customerSheetSettings = try JSONValueEncoder().encode(settings)
        } else {
            elements.customerSheetSettings = try JSONValueEncoder().encode(try await sheetSettings.inForce(for: caller, named: settingsName))
        }
        return elements
    }

    /// `customer`: the session's customer as the sheet shows it (through the session's redisplay
    /// filters and the sheet settings' filter), and the session's key (derived, the same on every
    /// call, expiring with the session).
    private func customer(
        _ session: CustomerSession, apiKey: String, settings: CustomerSheetSettings, by caller: Credential
    ) async throws -> JSONValue {
        let permissions = SessionPermissions(session.components)
        let shown = try await paymentMethods.sheetMethods(
            customer: session.customer, allowRedisplay: permissions.allowRedisplayFilters, settings: settings,
            by: Credential(kind: .secret, accountID: caller.accountID, sourceID: session.id)
        )
        let encoder = JSONValueEncoder()
        return [
            "payment_methods": .array(try shown.methods.map { try encoder.encode($0) }),
            "default_payment_method": shown.defaultMethod.map(JSONValue.string) ?? .null,
            "customer_session": [
                "id": .string(session.id),
                "livemode": false,
                "api_key": .string(apiKey),
                "api_key_expiry": .int(session.expiresAt),
                "customer": .string(session.customer),
                "components": [
                    "mobile_payment_element": try encoder.encode(session.components.mobilePaymentElement),
                    "customer_sheet": try encoder.encode(session.components.customerSheet),
                ],
            ],
        ]
    }
}
