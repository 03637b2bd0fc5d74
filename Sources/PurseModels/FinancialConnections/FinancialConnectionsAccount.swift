/// A bank account linked through Financial Connections (`financial_connections.account`).
/// Purse keeps its routing number, last four digits and fingerprint, never the account number.
public struct FinancialConnectionsAccount: Codable, Sendable, Hashable {
    public var id: String
    public var object: String = "financial_connections.account"
    public var accountHolder: FinancialConnectionsSession.AccountHolder?
    public var balance: JSONValue = .null
    public var balanceRefresh: JSONValue = .null
    /// `cash`: checking and savings accounts are the only ones Purse links.
    public var category: String = "cash"
    public var created: Int
    public var displayName: String
    public var institutionName: String
    public var last4: String
    public var livemode: Bool = false
    public var ownership: String? = nil
    public var ownershipRefresh: JSONValue = .null
    public var permissions: [String] = ["payment_method"]
    public var status: String = "active"
    /// `checking` or `savings`.
    public var subcategory: String
    public var supportedPaymentMethodTypes: [String] = ["us_bank_account"]

    public init(
        id: String, accountHolder: FinancialConnectionsSession.AccountHolder?, created: Int, displayName: String,
        institutionName: String, last4: String, subcategory: String
    ) {
        self.id = id
        self.accountHolder = accountHolder
        self.created = created
        self.displayName = displayName
        self.institutionName = institutionName
        self.last4 = last4
        self.subcategory = subcategory
    }

    enum CodingKeys: String, CodingKey {
        case id, object
        case accountHolder = "account_holder"
        case balance
        case balanceRefresh = "balance_refresh"
        case category, created
        case displayName = "display_name"
        case institutionName = "institution_name"
        case last4, livemode, ownership
        case ownershipRefresh = "ownership_refresh"
        case permissions, status, subcategory
        case supportedPaymentMethodTypes = "supported_payment_method_types"
    }
}
