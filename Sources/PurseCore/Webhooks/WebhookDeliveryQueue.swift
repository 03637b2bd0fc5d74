import PurseModels

/// The delivery queue's rules: due deliveries are claimed for one attempt each (never the same
/// attempt twice at once, however many servers share the database), then their outcome is
/// recorded and the next attempt scheduled, until one succeeds or the retries run out.
public struct WebhookDeliveryQueue: Sendable {
    private let database: any Database
    private let secrets: DerivedSecrets
    /// Seconds to wait before each retry: after the first failure, the second, and so on; the
    /// last interval repeats until `giveUpAfter`.
    public let retrySchedule: [Int]
    /// Seconds after the event when retries stop.
    public let giveUpAfter: Int
    /// How long a claimed attempt may run before another server may retry it (its server died):
    /// longer than any attempt may take, so a slow attempt is never sent twice at once.
    public let claimLease: Int

    public init(database: any Database, masterKey: MasterKey, retrySchedule: [Int], giveUpAfter: Int, attemptTimeout: Duration) {
        self.database = database
        self.secrets = DerivedSecrets(masterKey: masterKey)
        self.retrySchedule = retrySchedule.isEmpty ? [5] : retrySchedule
        self.giveUpAfter = giveUpAfter
        self.claimLease = max(60, Int(attemptTimeout.components.seconds) + 30)
    }

    /// An attempt to make: where, what, and how to sign it.
    public struct Attempt: Sendable {
        public let delivery: Int
        public let accountID: String
        public let endpointID: String
        public let eventID: String
        public let url: String
        public let secret: String
        /// The event as `GET /v1/events/{id}` shows it.
        public let body: [UInt8]
        /// Attempts made before this one.
        public let previousAttempts: Int
        public let eventCreated: Int
    }

    /// What happened when an attempt was made.
    public struct Outcome: Sendable {
        /// The response's status, or nil when no response came.
        public let statusCode: Int?
        /// Why no response came; what the tenant sees.
        public let failure: WebhookFailure?
        public let durationMs: Int
        /// The network's own account of a failure, for the operator's log only: it is never
        /// stored or shown to the tenant.
        public let detail: String?

        public init(statusCode: Int?, failure: WebhookFailure?, durationMs: Int, detail: String? = nil) {
            self.statusCode = statusCode
            self.failure = failure
            self.durationMs = durationMs
            self.detail = detail
        }

        /// Stripe counts any 2xx as delivered.
        public var succeeded: Bool { statusCode.map { (200...299).contains($0) } ?? false }
    }

    /// Claims up to `limit` due deliveries to enabled endpoints.
    public func claim(limit: Int) async throws -> [Attempt] {
        let lease = claimLease
        let secrets = self.secrets
        return try await database.transaction { repositories in
            let claimed = try await repositories.webhooks.claimDue(limit: limit, leaseSeconds: lease)
            if claimed.isEmpty { return [] }  // the usual poll: nothing due, no second statement
            // Their events in one statement, not one round trip each while the claim holds its locks.
            let stored = try await repositories.events.events(ids: claimed.map(\.eventID))
            let events = Dictionary(stored.map { ($0.event.id, $0) }) { first, _ in first }
            var attempts: [Attempt] = []
            for delivery in claimed {
                do {
                    attempts.append(try Self.attempt(for: delivery, event: events[delivery.eventID], secrets: secrets))
                } catch {
                    // An event that cannot be read now never will be. Left pending it would head
                    // every claim, and fail it, so nothing would be sent again: it is given up on.
                    try await repositories.webhooks.giveUp(delivery: delivery.delivery)
                }
            }
            return attempts
        }
    }

    private static func attempt(for delivery: ClaimedDelivery, event stored: StoredEvent?, secrets: DerivedSecrets) throws -> Attempt {
        guard let stored else { throw PurseError(.invalidRequest, message: "A delivery's event is missing") }
        let event = try EventService.event(stored, secrets: secrets)
        return Attempt(
            delivery: delivery.delivery, accountID: delivery.accountID, endpointID: delivery.endpointID, eventID: delivery.eventID,
            url: delivery.url, secret: secrets.webhookSigningSecret(delivery.endpointID),
            body: JSONWriter.bytes(try JSONValueEncoder().encode(event)),
            previousAttempts: delivery.previousAttempts, eventCreated: event.created
        )
    }

    /// The queue at a glance, for metrics.
    public func backlog() async throws -> WebhookBacklog {
        try await database.autocommit { try await $0.webhooks.backlog() }
    }

    /// Records an attempt and schedules the next one, or ends the delivery. `attemptID` names the
    /// attempt's record: the same for every try at recording one attempt, so a try whose commit
    /// was lost and the one after it record the attempt once.
    public func record(
        _ attempt: Attempt, outcome: Outcome, at time: Int = Clock.now, attemptID: String = ObjectID.make(.delivery)
    ) async throws {
        let attempts = attempt.previousAttempts + 1
        let delay = retrySchedule[min(attempts - 1, retrySchedule.count - 1)]
        let gaveUp = time + delay > attempt.eventCreated + giveUpAfter
        let nextRetry: Int? = outcome.succeeded || gaveUp ? nil : time + delay
        let state: DeliveryState = outcome.succeeded ? .delivered : (gaveUp ? .failed : .pending)
        let made = WebhookDeliveryAttempt(
            id: attemptID, created: time, durationMs: outcome.durationMs, endpoint: attempt.endpointID,
            error: outcome.failure?.rawValue, event: attempt.eventID, nextRetryAt: nextRetry, statusCode: outcome.statusCode
        )
        try await database.transaction { repositories in
            try await repositories.webhooks.recordAttempt(
                made, account: attempt.accountID, delivery: attempt.delivery, state: state, attempts: attempts,
                nextAttemptAt: nextRetry ?? time
            )
        }
    }
}
