import PurseModels

@testable import PurseCore

/// A row of `webhook_endpoints`: the endpoint without its secret (derived, never stored).
struct WebhookEndpointRow: KeysetRow {
    var endpoint: WebhookEndpoint
    let account: String
    let seq: Int

    var id: String { endpoint.id }
    var created: Int { endpoint.created }
}

/// A row of `webhook_deliveries`: one event to one endpoint. Its times are the database's
/// clock, in seconds.
struct WebhookDeliveryRow: Sendable {
    let seq: Int
    let account: String
    let endpointID: String
    let eventID: String
    var state: DeliveryState
    var attempts: Int
    var nextAttemptAt: Int
    var claimedUntil: Int?
}

/// A row of `webhook_attempts`.
struct WebhookAttemptRow: KeysetRow {
    let attempt: WebhookDeliveryAttempt
    let account: String
    let seq: Int

    var id: String { attempt.id }
    var created: Int { attempt.created }
}

/// ``WebhookRepository`` on ``InMemoryDatabase``; `now()` is the database's clock. Units of work
/// run one at a time, so `SKIP LOCKED` never has anything to skip: a claimed delivery is held off
/// by its lease alone.
struct InMemoryWebhookRepository: WebhookRepository {
    let database: InMemoryDatabase

    func insertEndpoint(_ endpoint: WebhookEndpoint, account: String) async throws {
        try await database.write { state in
            guard state.webhookEndpoints[endpoint.id] == nil else { throw InMemoryDatabaseError.constraint("webhook_endpoints_pkey") }
            guard ["enabled", "disabled"].contains(endpoint.status) else {
                throw InMemoryDatabaseError.constraint("webhook_endpoints_status_check")
            }
            var stored = endpoint
            stored.secret = nil
            state.webhookEndpoints[endpoint.id] = WebhookEndpointRow(endpoint: stored, account: account, seq: state.nextSeq())
        }
    }

    func findEndpoint(_ id: String, account: String, lock: Bool) async throws -> WebhookEndpoint? {
        await database.read { state in
            guard let row = state.webhookEndpoints[id], row.account == account else { return nil }
            return row.endpoint
        }
    }

    func updateEndpoint(_ endpoint: WebhookEndpoint, account: String) async throws {
        try await database.write { state in
            guard var row = state.webhookEndpoints[endpoint.id], row.account == account else { return }
            guard ["enabled", "disabled"].contains(endpoint.status) else {
                throw InMemoryDatabaseError.constraint("webhook_endpoints_status_check")
            }
            row.endpoint.url = endpoint.url
            row.endpoint.enabledEvents = endpoint.enabledEvents
            row.endpoint.description = endpoint.description
            row.endpoint.metadata = endpoint.metadata
            row.endpoint.status = endpoint.status
            state.webhookEndpoints[endpoint.id] = row
        }
    }

    func dropPendingDeliveries(endpoint: String) async throws {
        try await database.write { state in
            for (seq, row) in state.webhookDeliveries where row.endpointID == endpoint && row.state == .pending {
                state.webhookDeliveries[seq]?.state = .failed
            }
        }
    }

    func deleteEndpoint(_ id: String, account: String) async throws -> Bool {
        try await database.write { state in
            guard state.webhookEndpoints[id]?.account == account else { return false }
            state.webhookEndpoints[id] = nil
            // ON DELETE CASCADE
            state.webhookDeliveries = state.webhookDeliveries.filter { $0.value.endpointID != id }
            state.webhookAttempts = state.webhookAttempts.filter { $0.value.attempt.endpoint != id }
            return true
        }
    }

    func listEndpoints(account: String, pagination: Pagination) async throws -> Page<WebhookEndpoint> {
        try await database.read { state in
            try InMemoryKeysetList.page(
                state.webhookEndpoints.values, where: { $0.account == account }, pagination: pagination, noun: "webhook endpoint",
                decode: \.endpoint
            )
        }
    }

    func listAttempts(endpoint: String, account: String, pagination: Pagination) async throws -> Page<WebhookDeliveryAttempt> {
        try await database.read { state in
            try InMemoryKeysetList.page(
                state.webhookAttempts.values, where: { $0.account == account && $0.attempt.endpoint == endpoint },
                pagination: pagination, noun: "delivery attempt", decode: \.attempt
            )
        }
    }

    func claimDue(limit: Int, leaseSeconds: Int) async throws -> [ClaimedDelivery] {
        try await database.write { state in
            let now = state.now
            let due = state.webhookDeliveries.values.filter { row in
                row.state == .pending && row.nextAttemptAt <= now && (row.claimedUntil.map { $0 < now } ?? true)
                    && state.webhookEndpoints[row.endpointID]?.endpoint.status == "enabled"
            }
            .sorted { ($0.nextAttemptAt, $0.seq) < ($1.nextAttemptAt, $1.seq) }
            .prefix(limit)
            var claimed: [ClaimedDelivery] = []
            for row in due {
                state.webhookDeliveries[row.seq]?.claimedUntil = now + leaseSeconds
                claimed.append(
                    ClaimedDelivery(
                        delivery: row.seq, accountID: row.account, endpointID: row.endpointID, eventID: row.eventID,
                        url: state.webhookEndpoints[row.endpointID]?.endpoint.url ?? "", previousAttempts: row.attempts
                    )
                )
            }
            return claimed
        }
    }

    func giveUp(delivery: Int) async throws {
        try await database.write { state in
            guard state.webhookDeliveries[delivery] != nil else { return }
            state.webhookDeliveries[delivery]?.state = .failed
            state.webhookDeliveries[delivery]?.claimedUntil = nil
        }
    }

    func recordAttempt(
        _ attempt: WebhookDeliveryAttempt, account: String, delivery: Int, state deliveryState: DeliveryState, attempts: Int,
        nextAttemptAt: Int
    ) async throws {
        try await database.write { state in
            // ON CONFLICT (id) DO NOTHING.
            guard state.webhookAttempts[attempt.id] == nil else { return }
            guard state.webhookEndpoints[attempt.endpoint] != nil else {
                throw InMemoryDatabaseError.constraint("webhook_attempts_endpoint_id_fkey")
            }
            guard state.events[attempt.event] != nil else { throw InMemoryDatabaseError.constraint("webhook_attempts_event_id_fkey") }
            state.webhookAttempts[attempt.id] = WebhookAttemptRow(attempt: attempt, account: account, seq: state.nextSeq())
            guard var row = state.webhookDeliveries[delivery], row.state == .pending, row.attempts == attempts - 1 else { return }
            row.state = deliveryState
            row.attempts = attempts
            row.claimedUntil = nil
            row.nextAttemptAt = nextAttemptAt
            state.webhookDeliveries[delivery] = row
        }
    }

    func backlog() async throws -> WebhookBacklog {
        await database.read { state in
            let pending = state.webhookDeliveries.values.filter { $0.state == .pending }
            let due = pending.filter { $0.nextAttemptAt <= state.now }
            let oldest = due.map(\.nextAttemptAt).min()
            return WebhookBacklog(
                pending: pending.count, due: due.count, oldestDueAge: oldest.map { Double(state.now - $0) } ?? 0,
                failed: state.webhookDeliveries.values.filter { $0.state == .failed }.count
            )
        }
    }
}

extension InMemoryState {
    /// The deliveries an event starts: one to each enabled endpoint of its account that takes its
    /// type (or `*`), due at once.
    mutating func startDeliveries(of event: NewEvent) {
        let endpoints = webhookEndpoints.values.filter { row in
            row.account == event.account && row.endpoint.status == "enabled"
                && (row.endpoint.enabledEvents.contains("*") || row.endpoint.enabledEvents.contains(event.type))
        }
        for endpoint in endpoints.sorted(by: { $0.seq < $1.seq }) {
            let seq = nextSeq()
            webhookDeliveries[seq] = WebhookDeliveryRow(
                seq: seq, account: event.account, endpointID: endpoint.id, eventID: event.id, state: .pending, attempts: 0,
                nextAttemptAt: now, claimedUntil: nil
            )
        }
    }

    /// An event's deliveries still pending: its `pending_webhooks`.
    func pendingWebhooks(of event: String) -> Int {
        webhookDeliveries.values.filter { $0.eventID == event && $0.state == .pending }.count
    }
}
