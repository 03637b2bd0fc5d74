/// A saved (or savable) way to pay: a card, a US bank account or a SEPA debit account.
public struct PaymentMethod: Codable, Sendable, Hashable {
    public var id: String
    public var object: String = "payment_method"
    /// `always`, `limited` or `unspecified`: whether the method may be shown again to its customer.
    public var allowRedisplay: String
    public var billingDetails: BillingDetails
    public var card: CardDetails?
    public var created: Int
    /// The customer it is attached to, or nil.
    public var customer: String?
    public var livemode: Bool = false
    public var metadata: Metadata
    public var sepaDebit: SepaDebitDetails?
    /// `card`, `us_bank_account` or `sepa_debit`.
    public var type: String
    public var usBankAccount: USBankAccountDetails?

    public init(
        id: String, allowRedisplay: String, billingDetails: BillingDetails, card: CardDetails? = nil, created: Int,
        customer: String?, metadata: Metadata, sepaDebit: SepaDebitDetails? = nil, type: String,
        usBankAccount: USBankAccountDetails? = nil
    ) {
        self.id = id
        self.allowRedisplay = allowRedisplay
        self.billingDetails = billingDetails
        self.card = card
        self.created = created
        self.customer = customer
        self.metadata = metadata
        self.sepaDebit = sepaDebit
        self.type = type
        self.usBankAccount = usBankAccount
    }

    enum CodingKeys: String, CodingKey {
        case id, object
        case allowRedisplay = "allow_redisplay"
        case billingDetails = "billing_details"
        case card, created, customer, livemode, metadata
        case sepaDebit = "sepa_debit"
        case type
        case usBankAccount = "us_bank_account"
    }

    /// Writes only the details hash of the method's own type, as Stripe does.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(object, forKey: .object)
        try container.encode(allowRedisplay, forKey: .allowRedisplay)
        try container.encode(billingDetails, forKey: .billingDetails)
        if let card { try container.encode(card, forKey: .card) }
        try container.encode(created, forKey: .created)
        try container.encodeIfPresent(customer, forKey: .customer)
        try container.encode(livemode, forKey: .livemode)
        try container.encode(metadata, forKey: .metadata)
        if let sepaDebit { try container.encode(sepaDebit, forKey: .sepaDebit) }
        try container.encode(type, forKey: .type)
        if let usBankAccount { try container.encode(usBankAccount, forKey: .usBankAccount) }
    }
}

/// `billing_details`: every key present, null when unknown.
public struct BillingDetails: Codable, Sendable, Hashable {
    public var address: Address
    public var email: String?
    public var name: String?
    public var phone: String?
    /// Stripe's (for LATAM buyers of non-LATAM sellers, since API 2025-04-30): always null in
    /// Purse, which takes no tax ids.
    public var taxID: String?

    public init(address: Address = Address(), email: String? = nil, name: String? = nil, phone: String? = nil) {
        self.address = address
        self.email = email
        self.name = name
        self.phone = phone
    }

    enum CodingKeys: String, CodingKey {
        case address, email, name, phone
        case taxID = "tax_id"
    }
}
