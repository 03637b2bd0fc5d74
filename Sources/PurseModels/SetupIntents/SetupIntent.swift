/// Where a setup intent stands (Stripe's statuses).
public enum SetupIntentStatus: String, Codable, Sendable, CaseIterable {
    case requiresPaymentMethod = "requires_payment_method"
    case requiresConfirmation = "requires_confirmation"
    case requiresAction = "requires_action"
    case processing
    case canceled
    case succeeded

    /// Waiting for the customer or the merchant: it may still be updated, confirmed or canceled.
    public var isOpen: Bool { self == .requiresPaymentMethod || self == .requiresConfirmation || self == .requiresAction }
}

/// A setup intent: saving a payment method for later, with the customer's authentication when
/// the card asks for it.
public struct SetupIntent: Codable, Sendable, Hashable {
    public var id: String
    public var object: String = "setup_intent"
    public var application: String?
    public var automaticPaymentMethods: JSONValue?
    public var cancellationReason: String?
    public var clientSecret: String?
    public var created: Int
    public var customer: String?
    public var description: String?
    public var excludedPaymentMethodTypes: [String]?
    public var flowDirections: [String]?
    public var lastSetupError: SetupError?
    public var latestAttempt: String?
    public var livemode: Bool = false
    public var mandate: String?
    public var metadata: Metadata
    public var nextAction: NextAction?
    public var onBehalfOf: String?
    public var paymentMethod: String?
    public var paymentMethodConfigurationDetails: JSONValue?
    public var paymentMethodOptions: JSONValue
    public var paymentMethodTypes: [String]
    public var singleUseMandate: String?
    public var status: SetupIntentStatus
    /// `on_session` or `off_session`.
    public var usage: String
    /// The sheet settings its confirmation checks against, when it names some (Purse's own).
    public var customerSheetSettings: String?

    public init(
        id: String, created: Int, customer: String?, description: String?, metadata: Metadata,
        paymentMethod: String?, paymentMethodTypes: [String], status: SetupIntentStatus, usage: String
    ) {
        self.id = id
        self.created = created
        self.customer = customer
        self.description = description
        self.metadata = metadata
        self.paymentMethod = paymentMethod
        self.paymentMethodOptions = .object(JSONObject())
        self.paymentMethodTypes = paymentMethodTypes
        self.status = status
        self.usage = usage
    }

    enum CodingKeys: String, CodingKey {
        case id, object, application
        case automaticPaymentMethods = "automatic_payment_methods"
        case cancellationReason = "cancellation_reason"
        case clientSecret = "client_secret"
        case created, customer, description
        case excludedPaymentMethodTypes = "excluded_payment_method_types"
        case flowDirections = "flow_directions"
        case lastSetupError = "last_setup_error"
        case latestAttempt = "latest_attempt"
        case livemode, mandate, metadata
        case nextAction = "next_action"
        case onBehalfOf = "on_behalf_of"
        case paymentMethod = "payment_method"
        case paymentMethodConfigurationDetails = "payment_method_configuration_details"
        case paymentMethodOptions = "payment_method_options"
        case paymentMethodTypes = "payment_method_types"
        case singleUseMandate = "single_use_mandate"
        case status, usage
        case customerSheetSettings = "customer_sheet_settings"
    }

    /// The fields a publishable key with the client secret may see (Stripe's documented subset;
    /// `payment_method_options` in its client shape).
    public static let publishableFields: Set<String> = [
        "id", "object", "cancellation_reason", "client_secret", "created", "description", "last_setup_error",
        "livemode", "next_action", "payment_method", "payment_method_options", "payment_method_types", "status", "usage",
    ]
}

/// `last_setup_error`: why the last confirmation failed.
public struct SetupError: Codable, Sendable, Hashable {
    public var code: String?
    public var declineCode: String?
    public var docURL: String?
    public var message: String
    public var param: String?
    public var paymentMethod: PaymentMethod?
    public var paymentMethodType: String?
    /// `card_error`, `invalid_request_error`, ...
    public var type: String

    public init(
        code: String?, declineCode: String?, message: String, param: String?, paymentMethod: PaymentMethod?,
        paymentMethodType: String?, type: String
    ) {
        self.code = code
        self.declineCode = declineCode
        self.docURL = code.map { "https://docs.stripe.com/error-codes/" + String($0.map { $0 == "_" ? "-" : $0 }) }
        self.message = message
        self.param = param
        self.paymentMethod = paymentMethod
        self.paymentMethodType = paymentMethodType
        self.type = type
    }

    /// As Stripe's: `param` is left out, not null, when no parameter is at fault.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(code, forKey: .code)
        try container.encode(declineCode, forKey: .declineCode)
        try container.encode(docURL, forKey: .docURL)
        try container.encode(message, forKey: .message)
        if let param { try container.encode(param, forKey: .param) }
        try container.encode(paymentMethod, forKey: .paymentMethod)
        try container.encode(paymentMethodType, forKey: .paymentMethodType)
        try container.encode(type, forKey: .type)
    }

    enum CodingKeys: String, CodingKey {
        case code
        case declineCode = "decline_code"
        case docURL = "doc_url"
        case message, param
        case paymentMethod = "payment_method"
        case paymentMethodType = "payment_method_type"
        case type
    }
}

/// `next_action`: a redirect to Purse's 3D Secure page, or the microdeposits a bank account
/// waits for.
public struct NextAction: Codable, Sendable, Hashable {
    public var type: String
    public var redirectToURL: RedirectToURL?
    public var verifyWithMicrodeposits: VerifyWithMicrodeposits?

    public static func redirect(url: String, returnURL: String?) -> NextAction {
        NextAction(type: "redirect_to_url", redirectToURL: RedirectToURL(url: url, returnURL: returnURL))
    }

    public static func microdeposits(arrivalDate: Int, hostedVerificationURL: String) -> NextAction {
        NextAction(
            type: "verify_with_microdeposits",
            verifyWithMicrodeposits: VerifyWithMicrodeposits(arrivalDate: arrivalDate, hostedVerificationURL: hostedVerificationURL)
        )
    }

    private init(type: String, redirectToURL: RedirectToURL? = nil, verifyWithMicrodeposits: VerifyWithMicrodeposits? = nil) {
        self.type = type
        self.redirectToURL = redirectToURL
        self.verifyWithMicrodeposits = verifyWithMicrodeposits
    }

    enum CodingKeys: String, CodingKey {
        case type
        case redirectToURL = "redirect_to_url"
        case verifyWithMicrodeposits = "verify_with_microdeposits"
    }

    public struct RedirectToURL: Codable, Sendable, Hashable {
        public var url: String
        public var returnURL: String?

        enum CodingKeys: String, CodingKey {
            case url
            case returnURL = "return_url"
        }
    }

    /// Purse's microdeposits carry a statement descriptor code (Stripe's default for new accounts).
    public struct VerifyWithMicrodeposits: Codable, Sendable, Hashable {
        public var arrivalDate: Int
        public var hostedVerificationURL: String
        public var microdepositType: String = "descriptor_code"

        public init(arrivalDate: Int, hostedVerificationURL: String) {
            self.arrivalDate = arrivalDate
            self.hostedVerificationURL = hostedVerificationURL
        }

        enum CodingKeys: String, CodingKey {
            case arrivalDate = "arrival_date"
            case hostedVerificationURL = "hosted_verification_url"
            case microdepositType = "microdeposit_type"
        }
    }
}
