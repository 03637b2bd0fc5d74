public import PurseModels

/// A Financial Connections session as stored: who may use it, what it was made for, and the
/// account linked through it.
public struct StoredFinancialConnectionsSession: Sendable, Equatable {
    public var id: String
    public var accountID: String
    public var created: Int
    /// The customer whose account is linked, when the session was made for one (a setup
    /// intent's customer, or `customer` on the deferred endpoint).
    public var customer: String?
    /// The setup intent the session was made for (stripe-ios); its confirmation alone may use it.
    public var setupIntent: String?
    /// The elements session's `session_id` a deferred session was made for (stripe-android).
    public var uniqueID: String?
    /// `customer_sheet` or `payment_element`, as the SDK said.
    public var hostedSurface: String?
    public var status: FinancialConnectionsSessionStatus
    /// The app the return URLs lead back to (`mobile[application_id]`), once synchronized.
    public var appID: String?
    public var linkedAccount: LinkedBankAccount?
    /// What the session asks for, from its setup intent's options (the defaults for a deferred one).
    public var link: FinancialConnectionsLink

    public init(
        id: String, accountID: String, created: Int, customer: String?, setupIntent: String?, uniqueID: String?,
        hostedSurface: String?, status: FinancialConnectionsSessionStatus = .pending, appID: String? = nil,
        linkedAccount: LinkedBankAccount? = nil, link: FinancialConnectionsLink = FinancialConnectionsLink()
    ) {
        self.id = id
        self.accountID = accountID
        self.created = created
        self.customer = customer
        self.setupIntent = setupIntent
        self.uniqueID = uniqueID
        self.hostedSurface = hostedSurface
        self.status = status
        self.appID = appID
        self.linkedAccount = linkedAccount
        self.link = link
    }
}

/// An account linked through a session: what the `financial_connections.account` shows, and
/// what a `us_bank_account` payment method made from it needs (never the account number).
public struct LinkedBankAccount: Sendable, Equatable {
    public var id: String
    public var created: Int
    public var institutionName: String
    public var displayName: String
    public var last4: String
    public var routingNumber: String
    /// `checking` or `savings`.
    public var subcategory: String
    public var fingerprint: String
    /// The processor's handle on the account, which decides whether it can be saved.
    public var processorReference: String

    public init(
        id: String, created: Int, institutionName: String, displayName: String, last4: String, routingNumber: String,
        subcategory: String, fingerprint: String, processorReference: String
    ) {
        self.id = id
        self.created = created
        self.institutionName = institutionName
        self.displayName = displayName
        self.last4 = last4
        self.routingNumber = routingNumber
        self.subcategory = subcategory
        self.fingerprint = fingerprint
        self.processorReference = processorReference
    }
}
