/// `GET /v1/elements/sessions`: what the mobile SDKs ask for before showing a sheet. Purse
/// answers the keys stripe-ios and stripe-android read (docs/replays/); `customer` comes with a
/// customer session or PaymentSheet's ephemeral key.
public struct ElementsSession: Codable, Sendable, Hashable {
    public var sessionID: String
    public var livemode: Bool = false
    public var paymentMethodPreference: PaymentMethodPreference
    public var unactivatedPaymentMethodTypes: [String]
    public var merchantCountry: String
    public var applePayPreference: String = "enabled"
    public var cardBrandChoice: JSONValue = ["eligible": false, "preferred_networks": [], "supported_cobranded_networks": [:]]
    public var flags: JSONValue = [:]
    /// Link is off: Purse has no Link accounts, and `link` is never among the offered types.
    public var linkSettings: JSONValue = ["link_funding_sources": [], "link_passthrough_mode_enabled": false, "link_flags": [:]]
    public var externalPaymentMethodData: JSONValue?
    public var paymentMethodSpecs: [JSONValue] = []
    /// The customer's saved methods and session, with a customer session or PaymentSheet's ephemeral key.
    public var customer: JSONValue?
    /// stripe-ios's mobile-session contract payload, when the request sent its header.
    public var mobilePaymentElement: JSONValue?
    /// The sheet settings in force (Purse's own).
    public var customerSheetSettings: JSONValue?

    public init(
        sessionID: String, paymentMethodPreference: PaymentMethodPreference, unactivatedPaymentMethodTypes: [String],
        merchantCountry: String
    ) {
        self.sessionID = sessionID
        self.paymentMethodPreference = paymentMethodPreference
        self.unactivatedPaymentMethodTypes = unactivatedPaymentMethodTypes
        self.merchantCountry = merchantCountry
    }

    enum CodingKeys: String, CodingKey {
        case sessionID = "session_id"
        case livemode
        case paymentMethodPreference = "payment_method_preference"
        case unactivatedPaymentMethodTypes = "unactivated_payment_method_types"
        case merchantCountry = "merchant_country"
        case applePayPreference = "apple_pay_preference"
        case cardBrandChoice = "card_brand_choice"
        case flags
        case linkSettings = "link_settings"
        case externalPaymentMethodData = "external_payment_method_data"
        case paymentMethodSpecs = "payment_method_specs"
        case customer
        case mobilePaymentElement = "mobile_payment_element"
        case customerSheetSettings = "customer_sheet_settings"
    }

    public struct PaymentMethodPreference: Codable, Sendable, Hashable {
        public var object: String = "payment_method_preference"
        public var countryCode: String
        public var orderedPaymentMethodTypes: [String]
        /// `setup_intent` or `deferred_intent`.
        public var type: String
        /// The setup intent, as its client secret lets the publishable key see it.
        public var setupIntent: JSONValue?

        public init(countryCode: String, orderedPaymentMethodTypes: [String], type: String, setupIntent: JSONValue?) {
            self.countryCode = countryCode
            self.orderedPaymentMethodTypes = orderedPaymentMethodTypes
            self.type = type
            self.setupIntent = setupIntent
        }

        enum CodingKeys: String, CodingKey {
            case object
            case countryCode = "country_code"
            case orderedPaymentMethodTypes = "ordered_payment_method_types"
            case type
            case setupIntent = "setup_intent"
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(object, forKey: .object)
            try container.encode(countryCode, forKey: .countryCode)
            try container.encode(orderedPaymentMethodTypes, forKey: .orderedPaymentMethodTypes)
            try container.encode(type, forKey: .type)
            if let setupIntent { try container.encode(setupIntent, forKey: .setupIntent) }
        }
    }
}
