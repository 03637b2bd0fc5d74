import Logging
import PurseCore
import ServiceLifecycle

/// Delivers events to webhook endpoints from inside `purse serve`: claims due deliveries (each
/// attempt once, however many servers share the database), sends them concurrently, records the
/// outcome and the next retry. Pending deliveries survive a restart because they live in
/// PostgreSQL; delivery is at least once.
struct WebhookDeliveryService: Service {
    let queue: WebhookDeliveryQueue
    let transport: WebhookTransport
    let logger: Logger
    /// How often to look for due deliveries when there is nothing to send.
    var pollInterval: Duration = .milliseconds(500)
    /// Attempts in flight at once.
    var batchSize = 16
    /// How often a record the database refused is tried again, and how long before the claim
    /// expires the tries stop (another server may claim the delivery then).
    var recordRetryPause: Duration = .milliseconds(500)
    var recordRetryMargin: Duration = .seconds(10)

    /// What finished in the delivery loop's task group.
    private enum Finished {
        case attempt
        case pollTimer
    }

    /// Keeps up to `batchSize` attempts in flight, claiming more as soon as one finishes, so a
    /// slow endpoint holds one slot, not the queue; looks again every `pollInterval` when idle.
    /// On shutdown, attempts in flight finish (each within the transport's timeout).
    func run() async throws {
        await withTaskGroup(of: Finished.self) { group in
            var inFlight = 0
            var timerRunning = false
            // Cancelled (the service group ends this way when another service fails, the HTTP
            // server's bind, say), a claim fails at once and the timer does not wait: stop.
            while !Task.isShuttingDownGracefully && !Task.isCancelled {
                let claimed = inFlight < batchSize ? await claim(limit: batchSize - inFlight) : []
                for attempt in claimed {
                    group.addTask {
                        await deliver(attempt)
                        return .attempt
                    }
                }
                inFlight += claimed.count
                // A full claim may mean more is due: claim again while slots are free.
                if !claimed.isEmpty && inFlight < batchSize { continue }
                if !timerRunning {
                    timerRunning = true
                    group.addTask {
                        try? await cancelWhenGracefulShutdown { try await Task.sleep(for: pollInterval) }
                        return .pollTimer
                    }
                }
                switch await group.next() {
                case .attempt: inFlight -= 1
                case .pollTimer: timerRunning = false
                case nil: break
                }
            }
        }
    }

    private func claim(limit: Int) async -> [WebhookDeliveryQueue.Attempt] {
        do {
            return try await queue.claim(limit: limit)
        } catch {
            logger.warning("Could not claim webhook deliveries; retrying", metadata: ["error": "\(error)"])
            return []
        }
    }

    private func deliver(_ attempt: WebhookDeliveryQueue.Attempt) async {
        let outcome = await transport.send(attempt)
        var metadata: Logger.Metadata = [
            "event": .string(attempt.eventID), "endpoint": .string(attempt.endpointID),
            "status": .string(outcome.statusCode.map(String.init) ?? outcome.failure?.rawValue ?? "-"),
            "duration_ms": .stringConvertible(outcome.durationMs),
        ]
        // The network's own words are the operator's: the tenant sees only the class.
        if let detail = outcome.detail { metadata["detail"] = .string(detail) }
        logger.info("webhook attempt", metadata: metadata)
        await record(attempt, outcome: outcome)
    }

    /// Records the attempt, trying again while the database cannot be reached, until shortly
    /// before the claim expires: an attempt that reached the endpoint belongs in its log, and a
    /// delivery acknowledged by the endpoint must not be sent again. Past that, or when this
    /// server dies first, the claim expires and the event is sent again with the same id: at
    /// least once, twice only when the endpoint's answer was truly lost.
    private func record(_ attempt: WebhookDeliveryQueue.Attempt, outcome: WebhookDeliveryQueue.Outcome) async {
        let (time, attemptID) = (Clock.now, ObjectID.make(.delivery))
        // The claim was taken before the attempt was sent.
        let deadline = ContinuousClock.now + .seconds(queue.claimLease) - .milliseconds(outcome.durationMs) - recordRetryMargin
        while true {
            do {
                try await queue.record(attempt, outcome: outcome, at: time, attemptID: attemptID)
                return
            } catch let error as DatabaseError where error.isOutOfReach && ContinuousClock.now + recordRetryPause < deadline {
                try? await Task.sleep(for: recordRetryPause)
            } catch {
                logger.warning(
                    "Could not record a webhook attempt; its delivery is tried again when its claim expires",
                    metadata: ["error": "\(error)", "event": .string(attempt.eventID)]
                )
                return
            }
        }
    }
}
