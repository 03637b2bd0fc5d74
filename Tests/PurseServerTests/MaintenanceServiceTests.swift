import Foundation
import Logging
import PurseCore
import PursePostgres
import TestSupport
import Testing

@testable import PurseServer

/// `purse serve`'s housekeeping loop. Test servers leave it off and sweep by hand
/// (`LiveServer.sweep`); here it runs on its own, as it does in `purse serve`.
@Suite("Housekeeping")
struct MaintenanceServiceTests {
    /// The first round runs as the loop starts, not an interval later, and the loop ends when
    /// its task is cancelled.
    @Test func theFirstRoundSweepsAtOnceAndTheLoopEndsWhenCancelled() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let old = try #require(try await api.post("/v1/setup_intents").json["id"]?.stringValue)
            try await server.pool.query("UPDATE setup_intents SET updated_at = now() - interval '25 hours' WHERE id = \(old)")

            let database = PostgresDatabase(pool: server.pool)
            let caches = ChangeCaches()
            let setupIntents = SetupIntentService(
                database: database, processor: TestProcessor(), masterKey: server.masterKey,
                publicURL: PublicURL(server.baseURL.absoluteString), caches: caches
            )
            let housekeeping = MaintenanceService(
                idempotency: IdempotencyService(database: database, masterKey: server.masterKey),
                ephemeralKeys: EphemeralKeyService(database: database, lifetime: 3600, caches: caches),
                sessions: CustomerSessionService(database: database, masterKey: server.masterKey, lifetime: 1800, caches: caches),
                setupIntents: setupIntents,
                testClocks: TestClockService(database: database, caches: caches, setupIntents: setupIntents),
                logger: Logger(label: "purse.test"),
                interval: .seconds(3600)
            )
            let running = Task { try await housekeeping.run() }
            // Bounded: a loop that waited its hour first would fail here, not hang.
            var reason: String?
            for _ in 0..<600 where reason == nil {
                reason = try await api.get("/v1/setup_intents/\(old)").json["cancellation_reason"]?.stringValue
                if reason == nil { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(reason == "abandoned")
            running.cancel()
            try await running.value
        }
    }
}
