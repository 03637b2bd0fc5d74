import Foundation
import PurseServer
import TestSupport
import Testing

/// An advance is finished by the announcement of its commit, not by the advancer's timer: made
/// with an Idempotency-Key (as every SDK sends), the advance commits only after the handler
/// returns, so nothing the handler does could finish it.
@Suite("Test clock advances finish when announced")
struct TestClockAdvanceTests {
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
            var status = advancing.json["status"]
            for _ in 0..<200 where status != "ready" {
                try await Task.sleep(for: .milliseconds(100))
                status = try await api.get("/v1/test_helpers/test_clocks/\(clock)").json["status"]
            }
            #expect(status == "ready")
            #expect(try await api.get("/v1/test_helpers/test_clocks/\(clock)").json["frozen_time"] == 1_700_086_400)
        }
    }
}
