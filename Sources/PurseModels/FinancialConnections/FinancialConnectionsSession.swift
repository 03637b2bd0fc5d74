/// A Financial Connections session (`financial_connections.session`): a customer's visit to a
/// bank to link an account Purse can save as a `us_bank_account` payment method. The mobile
/// SDKs create it through the "link account session" endpoints and read it back from the
/// session receipt; Purse's test bank completes it.
public struct FinancialConnectionsSession: Codable, Sendable {
    public var id: String
    public var object: String = "financial_connections.session"
    public var accountHolder: AccountHolder?
    public var accounts: ListObject<FinancialConnectionsAccount>
    public var clientSecret: String
    public var filters: Filters = Filters()
    public var livemode: Bool = false
    /// The account the payment method is made from, once linked.
    public var paymentAccount: FinancialConnectionsAccount?
    public var permissions: [String] = ["payment_method"]
    public var prefetch: [String]? = nil
    public var returnURL: String? = nil
    public var status: FinancialConnectionsSessionStatus
    public var statusDetails: StatusDetails?

    public init(
        id: String, accountHolder: AccountHolder?, linkedAccount: FinancialConnectionsAccount?, clientSecret: String,
        status: FinancialConnectionsSessionStatus
    ) {
        self.id = id
        self.accountHolder = accountHolder
        self.accounts = ListObject(data: linkedAccount.map { [$0] } ?? [], hasMore: false, url: "/v1/financial_connections/accounts")
        self.clientSecret = clientSecret
        self.paymentAccount = linkedAccount
        self.status = status
        self.statusDetails = status == .cancelled ? StatusDetails(cancelled: .init(reason: "other")) : nil
    }

    enum CodingKeys: String, CodingKey {
        case id, object
        case accountHolder = "account_holder"
        case accounts
        case clientSecret = "client_secret"
        case filters, livemode
        case paymentAccount = "payment_account"
        case permissions, prefetch
        case returnURL = "return_url"
        case status
        case statusDetails = "status_details"
    }

    /// Every key, with `payment_account` left out until an account is linked: stripe-ios's
    /// decoder takes a `null` there for an account it cannot read, and reports a customer who
    /// closed the browser as a failure rather than a cancel.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(object, forKey: .object)
        try container.encode(accountHolder, forKey: .accountHolder)
        try container.encode(accounts, forKey: .accounts)
        try container.encode(clientSecret, forKey: .clientSecret)
        try container.encode(filters, forKey: .filters)
        try container.encode(livemode, forKey: .livemode)
        if let paymentAccount { try container.encode(paymentAccount, forKey: .paymentAccount) }
        try container.encode(permissions, forKey: .permissions)
        try container.encode(prefetch, forKey: .prefetch)
        try container.encode(returnURL, forKey: .returnURL)
        try container.encode(status, forKey: .status)
        try container.encode(statusDetails, forKey: .statusDetails)
    }

    /// `account_holder`: whose accounts these are (Purse links for customers only).
    public struct AccountHolder: Codable, Sendable, Hashable {
        public var type: String = "customer"
        public var customer: String

        public init(customer: String) {
            self.customer = customer
        }
    }

    /// `filters`: US accounts only, as `us_bank_account` needs, of the subcategories the setup
    /// intent allows (left out when it allows any).
    public struct Filters: Codable, Sendable, Hashable {
        public var accountSubcategories: [String]?
        public var countries: [String] = ["US"]

        public init() {}

        enum CodingKeys: String, CodingKey {
            case accountSubcategories = "account_subcategories"
            case countries
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            if let accountSubcategories { try container.encode(accountSubcategories, forKey: .accountSubcategories) }
            try container.encode(countries, forKey: .countries)
        }
    }

    /// `status_details`: why a session was cancelled.
    public struct StatusDetails: Codable, Sendable, Hashable {
        public var cancelled: Cancelled

        public struct Cancelled: Codable, Sendable, Hashable {
            /// `other`: the customer left (Purse has no custom manual entry).
            public var reason: String
        }
    }
}

/// Where a Financial Connections session stands. Stripe spells the last one with two l's.
public enum FinancialConnectionsSessionStatus: String, Codable, Sendable, Hashable {
    case pending, succeeded, cancelled
}
