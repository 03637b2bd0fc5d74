/// How long a portal session's URL opens its pages (Purse's choice: Stripe says only that
/// sessions are short-lived and expire when not visited): `firstVisit` seconds from its creation
/// for the first visit, then `idle` seconds after the latest page view or action, and never past
/// `maximum` seconds after its creation, so a leaked URL that something keeps opening still closes.
public struct PortalSessionLifetime: Sendable, Hashable {
    public var firstVisit = 300
    public var idle = 3600
    public var maximum = 86_400

    public static let standard = PortalSessionLifetime()

    /// Whether a session created at `created`, last active at `lastActive`, is open at `now`.
    public func isOpen(created: Int, lastActive: Int?, now: Int) -> Bool {
        guard created + maximum > now else { return false }
        if let lastActive { return lastActive + idle > now }
        return created + firstVisit > now
    }
}
