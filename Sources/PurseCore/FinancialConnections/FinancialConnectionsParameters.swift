/// `POST /v1/setup_intents/{id}/link_account_sessions`, as stripe-ios sends it.
public struct SetupIntentLinkParameters: Decodable, Sendable {
    public var clientSecret: String?
    public var paymentMethodData: PaymentMethodData?
    public var hostedSurface: String?
    public var linkMode: String?

    enum CodingKeys: String, CodingKey {
        case clientSecret = "client_secret"
        case paymentMethodData = "payment_method_data"
        case hostedSurface = "hosted_surface"
        case linkMode = "link_mode"
    }

    /// The payment method the session is for: a `us_bank_account`, and whose it is.
    public struct PaymentMethodData: Decodable, Sendable {
        public var type: PaymentMethodType
        public var billingDetails: BillingDetailsParameters?

        enum CodingKeys: String, CodingKey {
            case type
            case billingDetails = "billing_details"
        }
    }
}

/// `POST /v1/connections/link_account_sessions_for_deferred_payment`, as the mobile SDKs send it
/// for an intent not created yet.
public struct DeferredLinkParameters: Decodable, Sendable {
    /// The elements session's `session_id`.
    public var uniqueID: String
    public var customer: String?
    public var verificationMethod: VerificationMethod?
    public var hostedSurface: String?
    public var linkMode: String?
    public var amount: Int?
    public var currency: String?
    public var onBehalfOf: String?

    enum CodingKeys: String, CodingKey {
        case uniqueID = "unique_id"
        case customer
        case verificationMethod = "verification_method"
        case hostedSurface = "hosted_surface"
        case linkMode = "link_mode"
        case amount, currency
        case onBehalfOf = "on_behalf_of"
    }

    /// Purse's test bank verifies every account instantly; `microdeposits` alone it cannot do.
    public enum VerificationMethod: String, Sendable, CaseIterable, ParameterEnum {
        case automatic, instant, skip, microdeposits
        case instantOrSkip = "instant_or_skip"
    }
}

/// `POST /v1/financial_connections/sessions/synchronize`.
public struct SynchronizeParameters: Decodable, Sendable {
    public var clientSecret: String
    public var mobile: Mobile?

    enum CodingKeys: String, CodingKey {
        case clientSecret = "client_secret"
        case mobile
    }

    /// `mobile[...]`: the app the browser returns to.
    public struct Mobile: Decodable, Sendable {
        /// stripe-android: the app's package, which its return URLs' intent filters name.
        public var applicationID: String?
        /// stripe-ios: the app's bundle id.
        public var verifiedAppID: String?

        enum CodingKeys: String, CodingKey {
            case applicationID = "application_id"
            case verifiedAppID = "verified_app_id"
        }
    }
}

/// The calls that name a session by its client secret alone (session receipt, complete).
public struct SessionClientSecretParameters: Decodable, Sendable {
    public var clientSecret: String

    enum CodingKeys: String, CodingKey { case clientSecret = "client_secret" }
}

/// `GET /v1/link_account_sessions/list_accounts`.
public struct LinkedAccountListParameters: Decodable, Sendable {
    public var clientSecret: String
    public var startingAfter: String?

    enum CodingKeys: String, CodingKey {
        case clientSecret = "client_secret"
        case startingAfter = "starting_after"
    }
}
