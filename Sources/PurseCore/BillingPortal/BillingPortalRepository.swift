public import PurseModels

/// A portal session as kept: the object (without its `url`, which is never stored) and what
/// decides whether its pages still open.
public struct StoredPortalSession: Sendable, Hashable {
    public var session: BillingPortalSession
    public var accountID: String
    /// The latest page view or action; nil until the URL is first opened.
    public var lastActive: Int?
    /// When the session's flow was completed; nil while it is not (or it has none).
    public var completedAt: Int?

    public init(session: BillingPortalSession, accountID: String, lastActive: Int? = nil, completedAt: Int? = nil) {
        self.session = session
        self.accountID = accountID
        self.lastActive = lastActive
        self.completedAt = completedAt
    }
}

/// The customer portal's configurations (one of them each account's default) and sessions.
public protocol BillingPortalRepository: Sendable {
    func insertConfiguration(_ configuration: BillingPortalConfiguration, account: String) async throws

    /// Inserts `configuration` as the account's default unless the account has one already.
    func insertDefaultConfigurationIfMissing(_ configuration: BillingPortalConfiguration, account: String) async throws

    /// A configuration of `account` by id, or its default for `default`; `lock` keeps the row
    /// locked for an update until the transaction ends.
    func findConfiguration(_ id: String, account: String, lock: Bool) async throws -> BillingPortalConfiguration?

    /// Writes what may change: everything but the id, the default flag and the creation time.
    func updateConfiguration(_ configuration: BillingPortalConfiguration, account: String) async throws

    /// Configurations of `account`, newest first, optionally only those with the given flags.
    func listConfigurations(
        account: String, active: Bool?, isDefault: Bool?, pagination: Pagination
    ) async throws -> Page<BillingPortalConfiguration>

    func insertSession(_ session: StoredPortalSession) async throws

    /// Opens session `id` at `now` and records the visit: the session when it is still open
    /// (not revoked, its customer not deleted, opened for the first time within `firstVisit`
    /// seconds of its creation or active within `idle` seconds), nil otherwise.
    func visitSession(_ id: String, now: Int, firstVisit: Int, idle: Int) async throws -> StoredPortalSession?

    /// Marks the session's flow completed at `now`.
    func completeSession(_ id: String, account: String, now: Int) async throws

    /// Revokes every session of the customer still open at `now` (by the rules of
    /// ``visitSession(_:now:firstVisit:idle:)``); returns how many.
    func revokeSessions(customer: String, account: String, now: Int, firstVisit: Int, idle: Int) async throws -> Int
}
