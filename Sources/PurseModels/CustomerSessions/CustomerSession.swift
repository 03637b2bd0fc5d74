/// A customer session: lets an app's sheet act for one customer within the components and
/// features the merchant enabled. Its `client_secret` is shown only when it is created; `id` is
/// Purse's addition (Stripe's SDKs ignore it) used to revoke it.
public struct CustomerSession: Codable, Sendable, Hashable {
    public var id: String
    public var object: String = "customer_session"
    public var clientSecret: String?
    public var components: CustomerSessionComponents
    public var created: Int
    public var customer: String
    public var customerAccount: String?
    public var expiresAt: Int
    public var livemode: Bool = false
    /// The sheet settings the session uses, when it names some (Purse's own).
    public var customerSheetSettings: String?

    public init(id: String, clientSecret: String?, components: CustomerSessionComponents, created: Int, customer: String, expiresAt: Int) {
        self.id = id
        self.clientSecret = clientSecret
        self.components = components
        self.created = created
        self.customer = customer
        self.expiresAt = expiresAt
    }

    enum CodingKeys: String, CodingKey {
        case id, object
        case clientSecret = "client_secret"
        case components, created, customer
        case customerAccount = "customer_account"
        case expiresAt = "expires_at"
        case livemode
        case customerSheetSettings = "customer_sheet_settings"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(object, forKey: .object)
        // Only the creating response carries the client secret.
        if let clientSecret { try container.encode(clientSecret, forKey: .clientSecret) }
        try container.encode(components, forKey: .components)
        try container.encode(created, forKey: .created)
        try container.encode(customer, forKey: .customer)
        try container.encodeIfPresent(customerAccount, forKey: .customerAccount)
        try container.encode(expiresAt, forKey: .expiresAt)
        try container.encode(livemode, forKey: .livemode)
        if let customerSheetSettings { try container.encode(customerSheetSettings, forKey: .customerSheetSettings) }
    }
}

/// The components a session enables, each with its features (null when disabled).
public struct CustomerSessionComponents: Codable, Sendable, Hashable {
    public var buyButton: Toggle
    public var customerSheet: Component<CustomerSheetFeatures>
    public var mobilePaymentElement: Component<MobilePaymentElementFeatures>
    public var paymentElement: Component<PaymentElementFeatures>
    public var pricingTable: Toggle

    public init(
        buyButton: Toggle, customerSheet: Component<CustomerSheetFeatures>,
        mobilePaymentElement: Component<MobilePaymentElementFeatures>, paymentElement: Component<PaymentElementFeatures>,
        pricingTable: Toggle
    ) {
        self.buyButton = buyButton
        self.customerSheet = customerSheet
        self.mobilePaymentElement = mobilePaymentElement
        self.paymentElement = paymentElement
        self.pricingTable = pricingTable
    }

    enum CodingKeys: String, CodingKey {
        case buyButton = "buy_button"
        case customerSheet = "customer_sheet"
        case mobilePaymentElement = "mobile_payment_element"
        case paymentElement = "payment_element"
        case pricingTable = "pricing_table"
    }

    public struct Toggle: Codable, Sendable, Hashable {
        public var enabled: Bool
        public init(enabled: Bool) { self.enabled = enabled }
    }

    public struct Component<Features: Codable & Sendable & Hashable>: Codable, Sendable, Hashable {
        public var enabled: Bool
        public var features: Features?

        public init(enabled: Bool, features: Features?) {
            self.enabled = enabled
            self.features = features
        }
    }
}

/// `components.customer_sheet.features`; `payment_method_sync_default` is Purse's (and stripe-ios's).
public struct CustomerSheetFeatures: Codable, Sendable, Hashable {
    public var paymentMethodAllowRedisplayFilters: [String]
    public var paymentMethodRemove: String
    public var paymentMethodRemoveLast: String
    public var paymentMethodSyncDefault: String

    public init(allowRedisplayFilters: [String], remove: String, removeLast: String, syncDefault: String) {
        paymentMethodAllowRedisplayFilters = allowRedisplayFilters
        paymentMethodRemove = remove
        paymentMethodRemoveLast = removeLast
        paymentMethodSyncDefault = syncDefault
    }

    enum CodingKeys: String, CodingKey {
        case paymentMethodAllowRedisplayFilters = "payment_method_allow_redisplay_filters"
        case paymentMethodRemove = "payment_method_remove"
        case paymentMethodRemoveLast = "payment_method_remove_last"
        case paymentMethodSyncDefault = "payment_method_sync_default"
    }
}

/// `components.mobile_payment_element.features`.
public struct MobilePaymentElementFeatures: Codable, Sendable, Hashable {
    public var paymentMethodAllowRedisplayFilters: [String]
    public var paymentMethodRedisplay: String
    public var paymentMethodRemove: String
    public var paymentMethodRemoveLast: String
    public var paymentMethodSave: String
    public var paymentMethodSaveAllowRedisplayOverride: String?
    public var paymentMethodSetAsDefault: String

    public init(
        allowRedisplayFilters: [String], redisplay: String, remove: String, removeLast: String, save: String,
        saveAllowRedisplayOverride: String?, setAsDefault: String
    ) {
        paymentMethodAllowRedisplayFilters = allowRedisplayFilters
        paymentMethodRedisplay = redisplay
        paymentMethodRemove = remove
        paymentMethodRemoveLast = removeLast
        paymentMethodSave = save
        paymentMethodSaveAllowRedisplayOverride = saveAllowRedisplayOverride
        paymentMethodSetAsDefault = setAsDefault
    }

    enum CodingKeys: String, CodingKey {
        case paymentMethodAllowRedisplayFilters = "payment_method_allow_redisplay_filters"
        case paymentMethodRedisplay = "payment_method_redisplay"
        case paymentMethodRemove = "payment_method_remove"
        case paymentMethodRemoveLast = "payment_method_remove_last"
        case paymentMethodSave = "payment_method_save"
        case paymentMethodSaveAllowRedisplayOverride = "payment_method_save_allow_redisplay_override"
        case paymentMethodSetAsDefault = "payment_method_set_as_default"
    }
}

/// `components.payment_element.features`.
public struct PaymentElementFeatures: Codable, Sendable, Hashable {
    public var paymentMethodAllowRedisplayFilters: [String]
    public var paymentMethodRedisplay: String
    public var paymentMethodRedisplayLimit: Int
    public var paymentMethodRemove: String
    public var paymentMethodSave: String
    public var paymentMethodSaveUsage: String?

    public init(
        allowRedisplayFilters: [String], redisplay: String, redisplayLimit: Int, remove: String, save: String, saveUsage: String?
    ) {
        paymentMethodAllowRedisplayFilters = allowRedisplayFilters
        paymentMethodRedisplay = redisplay
        paymentMethodRedisplayLimit = redisplayLimit
        paymentMethodRemove = remove
        paymentMethodSave = save
        paymentMethodSaveUsage = saveUsage
    }

    enum CodingKeys: String, CodingKey {
        case paymentMethodAllowRedisplayFilters = "payment_method_allow_redisplay_filters"
        case paymentMethodRedisplay = "payment_method_redisplay"
        case paymentMethodRedisplayLimit = "payment_method_redisplay_limit"
        case paymentMethodRemove = "payment_method_remove"
        case paymentMethodSave = "payment_method_save"
        case paymentMethodSaveUsage = "payment_method_save_usage"
    }
}
