import Logging
import PurseCore
import ServiceLifecycle

/// Finishes test-clock advances inside `purse serve`: at once when this server started one
/// (``wake()``), and every `interval` for the ones another instance, or a process that stopped
/// midway, left advancing. Each advance is finished once, by whichever sweep locks it first.
final class TestClockAdvancer: Service, Sendable {
    private let clocks: TestClockService
    private let logger: Logger
    private let interval: Duration
    private let wakeUps: AsyncStream<Void>
    private let wakeUpSender: AsyncStream<Void>.Continuation

    init(clocks: TestClockService, logger: Logger, interval: Duration = .seconds(2)) {
        self.clocks = clocks
        self.logger = logger
        self.interval = interval
        // One pending wake-up is enough: a sweep finishes every advance started before it.
        (wakeUps, wakeUpSender) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Asks for a sweep now: an advance was just started.
    func wake() {
        wakeUpSender.yield()
    }

    func run() async throws {
        let wakeUpSender = self.wakeUpSender
        let interval = self.interval
        await withDiscardingTaskGroup { group in
            group.addTask {
                while (try? await Task.sleep(for: interval)) != nil { wakeUpSender.yield() }
            }
            for await _ in wakeUps.cancelOnGracefulShutdown() {
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
