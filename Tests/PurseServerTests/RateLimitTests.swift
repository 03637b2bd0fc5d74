import Foundation
import PurseModels
import TestSupport
import Testing

@testable import PurseServer

@Suite("Per-key rate limits")
struct RateLimitTests {
    /// A burst of 3 and one new request a minute: slow as a loaded machine may run the suite,
    /// no token comes back during a test.
    static let limited = ServerConfiguration(
        port: 0, logLevel: .warning, rateLimit: ServerConfiguration.RateLimit(rate: 1.0 / 60, burst: 3)
    )

    @Test func aKeyOverItsBurstGets429WithRetryAfterAndChangesNothing() async throws {
        try await LiveServer.with(configuration: Self.limited) { server in
            let account = try await server.makeAccount()
            for index in 0..<3 {
                #expect(try await account.secret.post("/v1/customers", "name=c\(index)").status == 200)
            }
            let refused = try await account.secret.post("/v1/customers", "name=over")
            #expect(refused.status == 429)
            #expect(refused.error?["type"] == "invalid_request_error")
            #expect(refused.error?["code"] == "rate_limit")
            let retryAfter = try #require(refused.header("Retry-After").flatMap { Int($0) })
            #expect((1...60).contains(retryAfter))
            // The refused create ran nothing: three customers, checked with another key.
            let count = try await server.pool.query("SELECT count(*) AS n FROM customers WHERE name = 'over'")
            #expect(try count[0]["n", as: Int.self] == 0)
        }
    }

    @Test func keysAreLimitedSeparately() async throws {
        try await LiveServer.with(configuration: Self.limited) { server in
            let account = try await server.makeAccount()
            let other = try await server.makeAccount()
            for _ in 0..<3 { _ = try await account.secret.get("/v1/customers") }
            #expect(try await account.secret.get("/v1/customers").status == 429)
            #expect(try await other.secret.get("/v1/customers").status == 200)
        }
    }

    /// The bucket itself, on a clock of its own: tokens come back at the rate, up to the burst.
    @Test func tokensComeBackAtTheRateUpToTheBurst() {
        let limiter = RateLimiter(ServerConfiguration.RateLimit(rate: 2, burst: 2))
        let start = ContinuousClock.now
        #expect(limiter.admit("k", now: start) == nil)
        #expect(limiter.admit("k", now: start) == nil)
        let wait = limiter.admit("k", now: start)
        #expect(wait == .milliseconds(500))
        #expect(limiter.admit("other", now: start) == nil)
        #expect(limiter.admit("k", now: start + .milliseconds(500)) == nil)
        #expect(limiter.admit("k", now: start + .milliseconds(500)) != nil)
        // A long quiet spell refills only up to the burst.
        #expect(limiter.admit("k", now: start + .seconds(60)) == nil)
        #expect(limiter.admit("k", now: start + .seconds(60)) == nil)
        #expect(limiter.admit("k", now: start + .seconds(60)) != nil)
    }

    @Test func publicRoutesAreNotLimited() async throws {
        try await LiveServer.with(configuration: Self.limited) { server in
            let anonymous = APIClient(baseURL: server.baseURL, key: nil)
            for _ in 0..<10 {
                let health = try await anonymous.get("/healthz")
                #expect(health.status == 200)
            }
        }
    }

    @Test func limitsAreOffByDefault() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            for _ in 0..<40 {
                let list = try await api.get("/v1/customers")
                #expect(list.status == 200)
            }
        }
    }
}
