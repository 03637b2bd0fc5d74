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
    /// The time of the customer's test clock, when it is on one (read with a visit): the pages
    /// filter expired cards by it.
    public var customerClockTime: Int?

    public init(
        session: BillingPortalSession, accountID: String, lastActive: Int? = nil, completedAt: Int? = nil, customerClockTime: Int? = nil
    ) {
        self.session = session
        self.accountID = accountID
        self.lastActive = lastActive
        self.completedAt = completedAt
        self.customerClockTime = customerClockTime
    }
}
