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
        let (advances, interval) = (self.advances, self.interval)
        await withDiscardingTaskGroup { group in
            group.addTask {
                while (try? await Task.sleep(for: interval)) != nil { advances.raise() }
            }
            for await _ in advances.changes.cancelOnGracefulShutdown() {
                do {
                    _ = try await clocks.finishAdvances()
                } catch {
                    logger.warning("Finishing test clock advances failed; the next sweep tries again", metadata: ["error": "\(error)"])
                }
            }
            group.cancelAll()
        }
    }
}
