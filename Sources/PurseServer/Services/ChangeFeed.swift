import Logging
import Postgres
import PurseCore
import ServiceLifecycle

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

    /// Listens until graceful shutdown or cancellation: the waits are short, and each loop turn
    /// checks whether to stop.
    func run() async throws {
        var named = configuration
        named.set("application_name", "purse-change-feed")
        let settings = named
        await cancelWhenGracefulShutdown {
            await listen(with: settings)
        }
    }

    private func listen(with settings: PostgresConfiguration) async {
        var failures = 0
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(configuration: settings)
                try await listen(on: connection, after: failures)
                connection.close()
                caches.setServing(false)
                return
            } catch {
                caches.setServing(false)
                guard !Task.isCancelled else { return }
                if failures == 0 {
                    logger.warning(
                        "Lost the change feed; credentials and settings are read from PostgreSQL until it is back",
                        metadata: ["error": "\(error)"]
                    )
                }
                failures += 1
                try? await Task.sleep(for: reconnectDelay)
            }
        }
    }

    /// Until cancelled: empties the caches each notification names, and checks the server still
    /// answers every `heartbeat`.
    private func listen(on connection: PostgresConnection, after failures: Int) async throws {
        do {
            try await connection.simpleQuery("LISTEN \(ChangeCaches.channel)")
            caches.setServing(true)
            if failures > 0 { logger.notice("The change feed is back; in-memory caches serve again") }
            var lastChecked = ContinuousClock.now
            while !Task.isCancelled {
                if ContinuousClock.now - lastChecked >= heartbeat {
                    try await connection.checkAlive(within: heartbeat)
                    lastChecked = .now
                }
                for notification in try await connection.notifications(waitingUpTo: .milliseconds(250)) {
                    caches.invalidate(topic: notification.payload)
                }
            }
        } catch {
            connection.close()
            throw error
        }
    }
}
