/// Who is calling: the kind of credential presented, its account, and for customer-scoped
/// credentials the one customer it may act for.
public struct Credential: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        /// `sk_test_...`: everything in the account.
        case secret
        /// `pk_test_...`: what an app may do before it knows the customer.
        case publishable
        /// `ek_test_...` from `POST /v1/ephemeral_keys`: one customer's sheet.
        case ephemeralKey
        /// The ephemeral key a customer session hands out: one customer, within the session's features.
        case customerSession
        /// A customer portal session's pages (`/p/session/...`): one customer, within the portal
        /// configuration's features.
        case billingPortal
    }

    public let kind: Kind
    public let accountID: String
    /// The customer an ephemeral or session key acts for; nil for account keys.
    public let customerID: String?
    /// The id of the key, ephemeral key or session behind the credential.
    public let sourceID: String
    /// For a customer session's key: what its features allow.
    public let session: SessionPermissions?
    /// The sheet settings the key or session was created with; nil means the account's default.
    public let sheetSettingsID: String?
    /// The time of the test clock the customer lives by, for a customer's credential whose
    /// customer is on one (as it was when the credential was looked up: an advance empties the
    /// credential cache).
    public let clockTime: Int?

    public init(
        kind: Kind, accountID: String, customerID: String? = nil, sourceID: String, session: SessionPermissions? = nil,
        sheetSettingsID: String? = nil, clockTime: Int? = nil
    ) {
        self.kind = kind
        self.accountID = accountID
        self.customerID = customerID
        self.sourceID = sourceID
        self.session = session
        self.sheetSettingsID = sheetSettingsID
        self.clockTime = clockTime
    }

    /// "Now" for what this credential does: its customer's test-clock time, or the wall clock.
    public var now: Int { clockTime ?? Clock.now }

    /// Whether the credential may act on everything in its account.
    public var isSecret: Bool { kind == .secret }

    /// Whether it is one of the credentials an app on a customer's device holds.
    public var isClient: Bool { kind != .secret }

    /// Who used an idempotency key: keys are not shared between an account's server and its
    /// customers' devices, nor between customers.
    public var idempotencyScope: String {
        switch kind {
        case .secret: return "secret"
        case .publishable: return "publishable"
        case .ephemeralKey, .customerSession, .billingPortal: return "customer:\(customerID ?? "")"
        }
    }
}
