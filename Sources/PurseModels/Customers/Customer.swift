/// A customer, as Stripe shows one.
public struct Customer: Codable, Sendable, Hashable {
    public var id: String
    public var object: String = "customer"
    public var address: Address?
    public var balance: Int = 0
    public var created: Int
    public var currency: String?
    public var defaultSource: String?
    public var delinquent: Bool = false
    public var description: String?
    /// Always null: Purse keeps no coupons.
    public var discount: String?
    public var email: String?
    public var invoicePrefix: String
    public var invoiceSettings: InvoiceSettings
    public var livemode: Bool = false
    public var metadata: Metadata
    public var name: String?
    public var nextInvoiceSequence: Int = 1
    public var phone: String?
    public var preferredLocales: [String]
    public var shipping: Shipping?
    public var taxExempt: String = "none"
    public var testClock: String?

    public init(
        id: String, created: Int, address: Address? = nil, description: String? = nil, email: String? = nil,
        invoicePrefix: String, invoiceSettings: InvoiceSettings = InvoiceSettings(), metadata: Metadata = [:],
        name: String? = nil, phone: String? = nil, preferredLocales: [String] = [], shipping: Shipping? = nil
    ) {
        self.id = id
        self.created = created
        self.address = address
        self.description = description
        self.email = email
        self.invoicePrefix = invoicePrefix
        self.invoiceSettings = invoiceSettings
        self.metadata = metadata
        self.name = name
        self.phone = phone
        self.preferredLocales = preferredLocales
        self.shipping = shipping
    }

    enum CodingKeys: String, CodingKey {
        case id, object, address, balance, created, currency
        case defaultSource = "default_source"
        case delinquent, description, discount, email
        case invoicePrefix = "invoice_prefix"
        case invoiceSettings = "invoice_settings"
        case livemode, metadata, name
        case nextInvoiceSequence = "next_invoice_sequence"
        case phone
        case preferredLocales = "preferred_locales"
        case shipping
        case taxExempt = "tax_exempt"
        case testClock = "test_clock"
    }
}

/// `customer.invoice_settings`; Purse uses `default_payment_method`.
public struct InvoiceSettings: Codable, Sendable, Hashable {
    public var customFields: [String]?
    /// The customer's default payment method (an id, or the object when expanded).
    public var defaultPaymentMethod: String?
    public var footer: String?
    public var renderingOptions: String?

    public init(defaultPaymentMethod: String? = nil) {
        self.defaultPaymentMethod = defaultPaymentMethod
    }

    enum CodingKeys: String, CodingKey {
        case customFields = "custom_fields"
        case defaultPaymentMethod = "default_payment_method"
        case footer
        case renderingOptions = "rendering_options"
    }
}

/// Where to ship to: `customer.shipping`.
public struct Shipping: Codable, Sendable, Hashable {
    public var address: Address
    public var name: String
    public var phone: String?

    public init(address: Address, name: String, phone: String? = nil) {
        self.address = address
        self.name = name
        self.phone = phone
    }
}
