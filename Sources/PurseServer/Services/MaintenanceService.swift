import Logging
import PurseCore
import ServiceLifecycle

/// Periodic housekeeping inside `purse serve`: forgets idempotency keys past their 24 hours,
/// deletes long-expired ephemeral keys and customer sessions, cancels setup intents abandoned for
/// a day, and deletes test clocks 30 days old with their customers.
struct MaintenanceService: Service {
    let idempotency: IdempotencyService
    let ephemeralKeys: EphemeralKeyService
    let sessions: CustomerSessionService
    let setupIntents: SetupIntentService
    let testClocks: TestClockService
    let logger: Logger
    let interval: Duration

    func run() async throws {
        // Cancelled, every sweep fails at once and the sleep does not wait: stop.
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            await sweep("expired idempotency keys") { try await idempotency.prune() }
            await sweep("expired ephemeral keys") { try await ephemeralKeys.sweepExpired() }
            await sweep("expired customer sessions") { try await sessions.sweepExpired() }
            await sweep("abandoned setup intents") { try await setupIntents.sweepAbandoned() }
            await sweep("expired test clocks") { try await testClocks.sweepExpired() }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }

    private func sweep(_ what: String, _ work: () async throws -> Int) async {
        do {
            let count = try await work()
            if count > 0 { logger.info("Swept \(count) \(what)") }
        } catch {
            logger.warning("Sweeping \(what) failed; it will run again", metadata: ["error": "\(error)"])
        }
    }
}
