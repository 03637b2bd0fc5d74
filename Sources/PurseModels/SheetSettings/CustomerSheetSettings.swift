/// Sheet settings (Purse's own): what a customer sheet collects, shows and may add, enforced by
/// the server for client credentials.
public struct CustomerSheetSettings: Codable, Sendable, Hashable {
    public var id: String
    public var object: String = "customer_sheet_settings"
    public var name: String?
    /// Whether these are the account's default settings.
    public var isDefault: Bool
    public var created: Int
    public var livemode: Bool = false
    /// The types a sheet may add: a subset of `card`, `us_bank_account`, `sepa_debit`.
    public var paymentMethodTypes: [String]
    public var billingDetailsCollection: BillingDetailsCollection
    public var defaultBillingDetails: BillingDetails
    public var savedPaymentMethodFilter: SavedPaymentMethodFilter
    /// `allow` or `reuse`.
    public var duplicateCards: String

    public init(
        id: String, name: String?, isDefault: Bool, created: Int, paymentMethodTypes: [String],
        billingDetailsCollection: BillingDetailsCollection, defaultBillingDetails: BillingDetails,
        savedPaymentMethodFilter: SavedPaymentMethodFilter, duplicateCards: String
    ) {
        self.id = id
        self.name = name
        self.isDefault = isDefault
        self.created = created
        self.paymentMethodTypes = paymentMethodTypes
        self.billingDetailsCollection = billingDetailsCollection
        self.defaultBillingDetails = defaultBillingDetails
        self.savedPaymentMethodFilter = savedPaymentMethodFilter
        self.duplicateCards = duplicateCards
    }

    enum CodingKeys: String, CodingKey {
        case id, object, name
        case isDefault = "is_default"
        case created, livemode
        case paymentMethodTypes = "payment_method_types"
        case billingDetailsCollection = "billing_details_collection"
        case defaultBillingDetails = "default_billing_details"
        case savedPaymentMethodFilter = "saved_payment_method_filter"
        case duplicateCards = "duplicate_cards"
    }

    /// `billing_details_collection`: `name`, `email`, `phone` are `automatic`, `always` or
    /// `never`; `address` is `automatic`, `full` or `never`.
    public struct BillingDetailsCollection: Codable, Sendable, Hashable {
        public var name: String
        public var email: String
        public var phone: String
        public var address: String
        public var attachDefaultsToPaymentMethod: Bool

        public init(name: String, email: String, phone: String, address: String, attachDefaultsToPaymentMethod: Bool) {
            self.name = name
            self.email = email
            self.phone = phone
            self.address = address
            self.attachDefaultsToPaymentMethod = attachDefaultsToPaymentMethod
        }

        enum CodingKeys: String, CodingKey {
            case name, email, phone, address
            case attachDefaultsToPaymentMethod = "attach_defaults_to_payment_method"
        }
    }

    /// `saved_payment_method_filter`: an empty list means no filter on that property.
    public struct SavedPaymentMethodFilter: Codable, Sendable, Hashable {
        public var card: CardFilter
        public var hideExpired: Bool
        public var allowRedisplay: [String]
        public var countries: [String]

        public init(card: CardFilter, hideExpired: Bool, allowRedisplay: [String], countries: [String]) {
            self.card = card
            self.hideExpired = hideExpired
            self.allowRedisplay = allowRedisplay
            self.countries = countries
        }

        enum CodingKeys: String, CodingKey {
            case card
            case hideExpired = "hide_expired"
            case allowRedisplay = "allow_redisplay"
            case countries
        }

        public struct CardFilter: Codable, Sendable, Hashable {
            public var funding: [String]
            public var brands: [String]

            public init(funding: [String], brands: [String]) {
                self.funding = funding
                self.brands = brands
            }
        }
    }
}
