import Foundation
import Postgres
import PurseCore
import PurseModels
import PurseServer
import TestSupport
import Testing

/// How advances are finished on PostgreSQL: by the announcement of the commit that started them,
/// by any server's sweep when that announcement was missed, and once when servers race.
@Suite("Test clock advances")
struct TestClockAdvanceTests {
    /// Polls the clock until it is ready, for at most 20 s.
    private func waitUntilReady(_ api: APIClient, _ clock: String) async throws -> JSONValue? {
        var status: JSONValue?
        for _ in 0..<200 {
            status = try await api.get("/v1/test_helpers/test_clocks/\(clock)").json["status"]
            if status == "ready" { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        return status
    }

    /// Made with an Idempotency-Key (as every SDK sends), the advance commits only after the
    /// handler returns, so nothing the handler does could finish it: its announcement does.
    @Test func anAdvanceMadeUnderAnIdempotencyKeyIsFinishedByItsAnnouncement() async throws {
        var configuration = ServerConfiguration(port: 0, logLevel: .warning)
        // The timer would take an hour: only the announcement can finish the advance in time.
        configuration.testClockSweepInterval = .seconds(3600)
        try await LiveServer.with(configuration: configuration) { server in
            let api = try await server.makeAccount().secret
            try await CredentialCacheTests.waitForTheChangeFeed(server)
            let clock = try #require(try await api.post("/v1/test_helpers/test_clocks", "frozen_time=1700000000").json["id"]?.stringValue)
            let advancing = try await api.post(
                "/v1/test_helpers/test_clocks/\(clock)/advance", "frozen_time=1700086400", headers: ["Idempotency-Key": UUID().uuidString]
            )
            #expect(advancing.json["status"] == "advancing")
            #expect(try await waitUntilReady(api, clock) == "ready")
            #expect(try await api.get("/v1/test_helpers/test_clocks/\(clock)").json["frozen_time"] == 1_700_086_400)
        }
    }

    /// An advance whose announcement no server heard (its server stopped before finishing it,
    /// the change feed was down) is finished by the next sweep.
    @Test func anAdvanceWhoseAnnouncementWasMissedIsFinishedByTheSweep() async throws {
        var configuration = ServerConfiguration(port: 0, logLevel: .warning)
        configuration.testClockSweepInterval = .milliseconds(200)
        try await LiveServer.with(configuration: configuration) { server in
            let api = try await server.makeAccount().secret
            let clock = try #require(try await api.post("/v1/test_helpers/test_clocks", "frozen_time=1700000000").json["id"]?.stringValue)
            // Started as the advance endpoint does, without the trigger that announces it.
            try await server.pool.query("ALTER TABLE test_clocks DISABLE TRIGGER test_clocks_advancing")
            try await server.pool.query("UPDATE test_clocks SET advancing_to = 1700086400 WHERE id = \(clock)")
            try await server.pool.query("ALTER TABLE test_clocks ENABLE TRIGGER test_clocks_advancing")
            #expect(try await waitUntilReady(api, clock) == "ready")
            #expect(try await api.get("/v1/test_helpers/test_clocks/\(clock)").json["frozen_time"] == 1_700_086_400)
        }
    }

    /// Two servers on one database both hear an advance and both sweep: it is finished once, and
    /// what it ends (a clocked customer's abandoned setup intent) ends once. (No time limit: in a
    /// full run the wait for a database slot alone can pass two minutes.)
    @Test func twoServersFinishAnAdvanceOnce() async throws {
        var configuration = ServerConfiguration(port: 0, logLevel: .warning)
        configuration.testClockSweepInterval = .milliseconds(50)
        try await TestPostgres.withEmptyDatabase { database in
            let masterKey = MasterKey.generate()
            let first = try await LiveServer.start(database: database.configuration, configuration: configuration, masterKey: masterKey)
            let second = try await LiveServer.start(database: database.configuration, configuration: configuration, masterKey: masterKey)
            do {
                let account = try await first.makeAccount()
                let api = account.secret
                let clock = try #require(try await api.post("/v1/test_helpers/test_clocks", "frozen_time=1700000000").json["id"]?.stringValue)
                let customer = try #require(try await api.post("/v1/customers", "test_clock=\(clock)").json["id"]?.stringValue)
                _ = try await api.post("/v1/setup_intents", "customer=\(customer)")
                let otherServer = APIClient(baseURL: second.baseURL, key: account.secretKey)
                #expect(try await otherServer.post("/v1/test_helpers/test_clocks/\(clock)/advance", "frozen_time=1700086401").status == 200)
                #expect(try await waitUntilReady(api, clock) == "ready")
                for type in ["test_helpers.test_clock.ready", "setup_intent.canceled"] {
                    #expect(try await api.get("/v1/events", query: "type=\(type)").json["data"]?.arrayValue?.count == 1, "\(type)")
                }
            } catch {
                await first.stop()
                await second.stop()
                throw error
            }
            await first.stop()
            await second.stop()
        }
    }
}
