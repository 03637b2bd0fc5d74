public import PurseModels

/// A delivery claimed for one attempt.
public struct ClaimedDelivery: Sendable, Equatable {
    public let delivery: Int
    public let accountID: String
    public let endpointID: String
    public let eventID: String
    public let url: String
    /// Attempts made before this one.
    public let previousAttempts: Int

    public init(delivery: Int, accountID: String, endpointID: String, eventID: String, url: String, previousAttempts: Int) {
        self.delivery = delivery
        self.accountID = accountID
        self.endpointID = endpointID
        self.eventID = eventID
        self.url = url
        self.previousAttempts = previousAttempts
    }
}

/// Where a delivery stands after an attempt.
public enum DeliveryState: String, Sendable {
    case pending, delivered, failed
}

/// The delivery queue at a glance, for metrics: counts over the whole database (every account,
/// every server), no ids.
public struct WebhookBacklog: Sendable, Equatable {
    /// Deliveries still to be made.
    public let pending: Int
    /// Pending deliveries whose next attempt is due now.
    public let due: Int
    /// Seconds the longest-due of those has been waiting past its time (0 when none is due).
    public let oldestDueAge: Double
    /// Deliveries given up on, or dropped when their endpoint was disabled.
    public let failed: Int

    public init(pending: Int, due: Int, oldestDueAge: Double, failed: Int) {
        self.pending = pending
        self.due = due
        self.oldestDueAge = oldestDueAge
        self.failed = failed
    }
}

/// Webhook endpoints, the deliveries of events to them and the attempts made.
public protocol WebhookRepository {
    func insertEndpoint(_ endpoint: WebhookEndpoint, account: String) async throws

    /// An endpoint of `account`; with `lock`, its row is locked against other changes (but not
    /// against deliveries pointing at it) for the rest of the transaction.
    func findEndpoint(_ id: String, account: String, lock: Bool) async throws -> WebhookEndpoint?

    /// Writes what may change: URL, events, description, metadata, status.
    func updateEndpoint(_ endpoint: WebhookEndpoint, account: String) async throws

    /// Fails the pending deliveries to an endpoint.
    func dropPendingDeliveries(endpoint: String) async throws

    /// Deletes an endpoint with its deliveries and attempts; false when there was none.
    func deleteEndpoint(_ id: String, account: String) async throws -> Bool

    /// Endpoints, newest first.
    func listEndpoints(account: String, pagination: Pagination) async throws -> Page<WebhookEndpoint>

    /// The attempts to an endpoint, newest first.
    func listAttempts(endpoint: String, account: String, pagination: Pagination) async throws -> Page<WebhookDeliveryAttempt>

    /// Claims up to `limit` due deliveries to enabled endpoints for `leaseSeconds`, oldest due
    /// first, in one statement. Deliveries another transaction holds are skipped, not waited
    /// for, and a claimed one is not due again until its lease ends: no attempt is made twice
    /// at once, however many servers share the database.
    func claimDue(limit: Int, leaseSeconds: Int) async throws -> [ClaimedDelivery]

    /// Ends a claimed delivery as failed, without an attempt.
    func giveUp(delivery: Int) async throws

    /// Records an attempt, then where its delivery stands, if it is still pending with the
    /// attempts made before this one (`attempts - 1`): its state, the attempts made, and when the
    /// next is due. Recording the same attempt (by id) again changes nothing, so a record whose
    /// commit was not acknowledged can be tried again.
    func recordAttempt(
        _ attempt: WebhookDeliveryAttempt, account: String, delivery: Int, state: DeliveryState, attempts: Int, nextAttemptAt: Int
    ) async throws

    /// Reads the ``WebhookBacklog`` in one statement.
    func backlog() async throws -> WebhookBacklog
}
