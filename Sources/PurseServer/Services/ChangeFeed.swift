import Logging
import NIOPosix
import Postgres
import PurseCore
import ServiceLifecycle
import Synchronization

/// Listens to `purse_changes` on a connection of its own and empties the caches a committed
/// change concerns, whichever server or tool made it (migration 0012's triggers send them).
///
/// The caches serve only while the feed is listening: before the first connection and after a
/// lost one they are bypassed, because a change could be missed, and they start over empty when
/// it is back. A connection that only listens hears nothing when the server stops answering
/// without closing it (a failover, a firewall forgetting an idle connection), so the feed asks
/// for an answer every `heartbeat` and counts the connection lost when none comes within it.
struct ChangeFeed: Service {
    let configuration: PostgresConfiguration
    let caches: ChangeCaches
    let logger: Logger
    /// How long to wait before connecting again after a failure.
    var reconnectDelay: Duration = .seconds(1)
    var heartbeat: Duration = .seconds(5)

    /// Set at graceful shutdown or cancellation; the listening thread checks it between waits.
    private final class StopFlag: Sendable {
        private let stopped = Atomic(false)
        var isSet: Bool { stopped.load(ordering: .relaxed) }
        func set() { stopped.store(true, ordering: .relaxed) }
    }

    func run() async throws {
        var named = configuration
        named.set("application_name", "purse-change-feed")
        let settings = named
        let stop = StopFlag()
        // libpq blocks, so the feed has a thread of its own rather than a cooperative one.
        let thread = NIOThreadPool(numberOfThreads: 1)
        thread.start()
        await withTaskCancellationOrGracefulShutdownHandler {
            try? await thread.runIfActive { listen(with: settings, until: stop) }
        } onCancelOrGracefulShutdown: {
            stop.set()
        }
        try? await thread.shutdownGracefully()
    }

    private func listen(with settings: PostgresConfiguration, until stop: StopFlag) {
        var failures = 0
        while !stop.isSet {
            do {
                let connection = try PostgresConnection(configuration: settings)
                defer { connection.close() }
                try connection.simpleQuery("LISTEN \(ChangeCaches.channel)")
                caches.setServing(true)
                if failures > 0 { logger.notice("The change feed is back; in-memory caches serve again") }
                failures = 0
                var lastChecked = ContinuousClock.now
                while !stop.isSet {
                    if ContinuousClock.now - lastChecked >= heartbeat {
                        try connection.checkAlive(within: heartbeat)
                        lastChecked = .now
                    }
                    for notification in try connection.notifications(waitingUpTo: .milliseconds(250)) {
                        caches.invalidate(topic: notification.payload)
                    }
                }
                caches.setServing(false)
            } catch {
                caches.setServing(false)
                if failures == 0 {
                    logger.warning(
                        "Lost the change feed; credentials and settings are read from PostgreSQL until it is back",
                        metadata: ["error": "\(error)"]
                    )
                }
                failures += 1
                pause(reconnectDelay, unless: stop)
            }
        }
    }

    /// Sleeps on the feed's thread in short steps, so shutdown is not held up.
    private func pause(_ delay: Duration, unless stop: StopFlag) {
        let deadline = ContinuousClock.now + delay
        while !stop.isSet && ContinuousClock.now < deadline {
            usleep(50_000)
        }
    }
}
