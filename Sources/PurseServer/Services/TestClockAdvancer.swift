import Logging
import PurseCore
import ServiceLifecycle

/// Finishes test-clock advances inside `purse serve`: as soon as the change feed announces one
/// (after the transaction that started it commits, on whichever server started it), and every
/// `interval` for one whose announcement was missed (the feed was down, or a server stopped
/// midway). Each advance is finished once, by whichever server's sweep locks it first.
struct TestClockAdvancer: Service {
    let clocks: TestClockService
    let advances: ChangeSignal
    let logger: Logger
    var interval: Duration = .seconds(2)

    func run() async throws {
        let (clocks, advances, interval, logger) = (self.clocks, self.advances, self.interval, self.logger)
        await withDiscardingTaskGroup { group in
            group.addTask {
                while (try? await Task.sleep(for: interval)) != nil { advances.raise() }
            }
            // Not `changes.cancelOnGracefulShutdown()`: its `merge` (swift-async-algorithms 1.1.4)
            // holds a lock across `withUnsafeThrowingContinuation`, which may re-enqueue the task
            // (swiftlang/swift#85668), so a cancellation that comes first waits on the lock; on
            // the thread that job needs, forever (swift-async-algorithms#430).
            await cancelWhenGracefulShutdown {
                for await _ in advances.changes {
                    do {
                        _ = try await clocks.finishAdvances()
                    } catch {
                        // Stopping cancels a sweep midway: no failure, and whichever server
                        // sweeps next finishes what it left.
                        guard !Task.isCancelled else { break }
                        logger.warning("Finishing test clock advances failed; the next sweep tries again", metadata: ["error": "\(error)"])
                    }
                }
            }
            group.cancelAll()
        }
    }
}
