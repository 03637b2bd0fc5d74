public import Postgres
import PurseModels

/// The delivery queue: due deliveries are claimed for one attempt each (`FOR UPDATE SKIP
/// LOCKED`, so several servers on one database never send the same attempt twice), then their
/// outcome is recorded and the next attempt scheduled.
public struct WebhookDeliveryStore: Sendable {
    private let pool: PostgresClient
    private let secrets: DerivedSecrets
    /// Seconds to wait before each retry: after the first failure, the second, and so on; the
    /// last interval repeats until `giveUpAfter`.
    public let retrySchedule: [Int]
    /// Seconds after the event when retries stop.
    public let giveUpAfter: Int
    /// How long a claimed attempt may run before another server may retry it (its server died):
    /// longer than any attempt may take, so a slow attempt is never sent twice at once.
    public let claimLease: Int

    public init(pool: PostgresClient, masterKey: MasterKey, retrySchedule: [Int], giveUpAfter: Int, attemptTimeout: Duration) {
        self.pool = pool
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
        return try await pool.withTransaction { connection in
            let claimed = try await connection.query(
                """
                UPDATE webhook_deliveries d SET claimed_until = now() + \(lease) * interval '1 second'
                FROM webhook_endpoints w
                WHERE d.seq IN (
                    SELECT d2.seq FROM webhook_deliveries d2
                    JOIN webhook_endpoints w2 ON w2.id = d2.endpoint_id AND w2.status = 'enabled'
                    WHERE d2.state = 'pending' AND d2.next_attempt_at <= now()
                      AND (d2.claimed_until IS NULL OR d2.claimed_until < now())
                    ORDER BY d2.next_attempt_at
                    LIMIT \(limit)
                    FOR UPDATE OF d2 SKIP LOCKED
                ) AND w.id = d.endpoint_id
                RETURNING d.seq, d.account_id, d.endpoint_id, d.event_id, d.attempts, w.url
                """
            )
            if claimed.isEmpty { return [] }  // the usual poll: nothing due, no second statement
            // Their events in one statement, not one round trip each while the claim holds its locks.
            let eventIDs = try claimed.map { try $0["event_id", as: String.self] }
            let stored = try await PostgresDatabase.repositories(on: connection).events.events(ids: eventIDs)
            let events = Dictionary(stored.map { ($0.event.id, $0) }) { first, _ in first }
            var attempts: [Attempt] = []
            for row in claimed {
                do {
                    attempts.append(try Self.attempt(for: row, events: events, secrets: secrets))
                } catch {
                    // An event that cannot be read now never will be. Left pending it would head
                    // every claim, and fail it, so nothing would be sent again: it is given up on.
                    try await connection.query(
                        "UPDATE webhook_deliveries SET state = 'failed', claimed_until = NULL WHERE seq = \(try row["seq", as: Int.self])"
                    )
                }
            }
            return attempts
        }
    }

    private static func attempt(for row: PostgresRow, events: [String: StoredEvent], secrets: DerivedSecrets) throws -> Attempt {
        let eventID: String = try row["event_id"]
        guard let stored = events[eventID] else { throw PurseError(.invalidRequest, message: "A delivery's event is missing") }
        let event = try EventService.event(stored, secrets: secrets)
        let endpointID: String = try row["endpoint_id"]
        return Attempt(
            delivery: try row["seq"], accountID: try row["account_id"], endpointID: endpointID, eventID: eventID,
            url: try row["url"], secret: secrets.webhookSigningSecret(endpointID),
            body: JSONWriter.bytes(try JSONValueEncoder().encode(event)),
            previousAttempts: Int(try row["attempts", as: Int32.self]), eventCreated: event.created
        )
    }

    /// The queue at a glance, for metrics: counts over the whole database (every account, every
    /// server), no ids.
    public struct Backlog: Sendable, Equatable {
        /// Deliveries still to be made.
        public let pending: Int
        /// Pending deliveries whose next attempt is due now.
        public let due: Int
        /// Seconds the longest-due of those has been waiting past its time (0 when none is due).
        public let oldestDueAge: Double
        /// Deliveries given up on, or dropped when their endpoint was disabled.
        public let failed: Int
    }

    /// Reads the ``Backlog`` in one statement; each count is served by a partial index, so it
    /// costs in proportion to the backlog, not to the deliveries ever made.
    public func backlog() async throws -> Backlog {
        let rows = try await pool.query(
            """
            SELECT
                (SELECT count(*) FROM webhook_deliveries WHERE state = 'pending') AS pending,
                due.count AS due,
                COALESCE(extract(epoch FROM now() - due.oldest), 0)::float8 AS oldest_due_age,
                (SELECT count(*) FROM webhook_deliveries WHERE state = 'failed') AS failed
            FROM (
                SELECT count(*) AS count, min(next_attempt_at) AS oldest FROM webhook_deliveries
                WHERE state = 'pending' AND next_attempt_at <= now()
            ) due
            """
        )
        let row = rows[0]
        return Backlog(
            pending: try row["pending"], due: try row["due"], oldestDueAge: try row["oldest_due_age"],
            failed: try row["failed"]
        )
    }

    /// Records an attempt and schedules the next one, or ends the delivery.
    public func record(_ attempt: Attempt, outcome: Outcome, at time: Int = Clock.now) async throws {
        let attempts = attempt.previousAttempts + 1
        let delay = retrySchedule[min(attempts - 1, retrySchedule.count - 1)]
        let gaveUp = time + delay > attempt.eventCreated + giveUpAfter
        let nextRetry: Int? = outcome.succeeded || gaveUp ? nil : time + delay
        let state = outcome.succeeded ? "delivered" : (gaveUp ? "failed" : "pending")
        try await pool.withTransaction { connection in
            // The attempt first: its foreign key locks the endpoint (key share) before the
            // delivery's row is locked, the order an endpoint's update or delete takes them in.
            // The other order deadlocked with an endpoint being disabled.
            try await connection.query(
                """
                INSERT INTO webhook_attempts (id, account_id, endpoint_id, event_id, created, status_code, duration_ms, error, next_retry_at)
                VALUES (\(ObjectID.make(.delivery)), \(attempt.accountID), \(attempt.endpointID), \(attempt.eventID), \(time),
                        \(outcome.statusCode.map(Int32.init)), \(Int32(outcome.durationMs)), \(outcome.failure?.rawValue), \(nextRetry))
                """
            )
            try await connection.query(
                """
                UPDATE webhook_deliveries
                SET state = \(state), attempts = \(Int32(attempts)), claimed_until = NULL,
                    next_attempt_at = to_timestamp(\(nextRetry ?? time))
                WHERE seq = \(attempt.delivery) AND state = 'pending'
                """
            )
        }
    }
}
