import Logging
import PurseCore
import ServiceLifecycle

/// Periodic housekeeping inside `purse serve`: forgets idempotency keys past their 24 hours.
struct MaintenanceService: Service {
    let idempotency: IdempotencyStore
    let logger: Logger
    var interval: Duration = .seconds(600)

    func run() async throws {
        while !Task.isShuttingDownGracefully {
            do {
                let pruned = try await idempotency.prune()
                if pruned > 0 { logger.info("Pruned \(pruned) expired idempotency keys") }
            } catch {
                logger.warning("Housekeeping failed; it will run again", metadata: ["error": "\(error)"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }
}
