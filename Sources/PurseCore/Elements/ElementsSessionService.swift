public import PurseModels

/// `GET /v1/elements/sessions` with the publishable key: the types to offer and, for a setup
/// intent, the intent itself.
public struct ElementsSessionService: Sendable {
    private let setupIntents: SetupIntentService

    /// The country Purse reports for the merchant and for payment method preference.
    public static let merchantCountry = "US"

    public init(setupIntents: SetupIntentService) { self.setupIntents = setupIntents }

    public struct Parameters: Decodable, Sendable {
        public enum Kind: String, Sendable, CaseIterable, ParameterEnum {
            case setupIntent = "setup_intent"
            case deferredIntent = "deferred_intent"
        }

        public var type: Kind
        public var clientSecret: String?
        public var deferredIntent: DeferredIntent?

        enum CodingKeys: String, CodingKey {
            case type
            case clientSecret = "client_secret"
            case deferredIntent = "deferred_intent"
        }

        /// What stripe-ios sends that Purse does not act on (spec §3).
        public static let ignoredByPurse: Set<String> = [
            "locale", "mobile_app_id", "client_default_payment_method", "external_payment_methods", "key",
            "deferred_intent[currency]", "deferred_intent[amount]", "deferred_intent[setup_future_usage]",
            "deferred_intent[capture_method]", "deferred_intent[payment_method_configuration]", "deferred_intent[on_behalf_of]",
        ]
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
        return ElementsSession(
            sessionID: "elements_session_" + ObjectID.randomBase62(length: 12), paymentMethodPreference: preference,
            unactivatedPaymentMethodTypes: unactivated, merchantCountry: Self.merchantCountry
        )
    }
}
