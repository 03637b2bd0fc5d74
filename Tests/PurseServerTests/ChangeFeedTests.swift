import Logging
import Postgres
import PurseCore
import ServiceLifecycle
import TestSupport
import Testing

@testable import PurseServer

@Suite("The change feed")
struct ChangeFeedTests {
    /// A server that stops answering without closing anything (a failover, a firewall that
    /// forgot the connection) sends the feed no error and no notifications. Its heartbeat finds
    /// out, and the caches stop serving what the feed can no longer keep current.
    @Test func aServerThatStopsAnsweringIsNoticed() async throws {
        var configuration = try TestPostgres.serverConfiguration()
        let proxy = try SilenceableProxy(upstreamPort: try #require(configuration.value(for: "port").flatMap { Int($0) }))
        configuration.set("host", "127.0.0.1")
        configuration.set("port", String(proxy.port))
        var logger = Logger(label: "purse.test")
        logger.logLevel = .critical
        let caches = ChangeCaches()
        let feed = ChangeFeed(configuration: configuration, caches: caches, logger: logger, heartbeat: .seconds(1))
        let group = ServiceGroup(configuration: .init(services: [feed], logger: logger))
        let running = Task { try await group.run() }
        try await Self.waitUntil { caches.isServing }
        proxy.silence()
        try await Self.waitUntil { !caches.isServing }
        // Closed, the proxy refuses the feed's attempts to connect again, so it stops promptly.
        proxy.stop()
        await group.triggerGracefulShutdown()
        try await running.value
    }

    private static func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("The condition never held")
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
