import Foundation
import Postgres
import TestSupport
import Testing

@Suite("Health and readiness over HTTP")
struct HealthTests {
    @Test func healthzAnswersWithARequestID() async throws {
        try await LiveServer.with { server in
            let call = try await HTTPCall.send("GET", server.baseURL.appendingPathComponent("healthz"))
            #expect(call.status == 200)
            #expect(call.json["status"] == "ok")
            let requestID = try #require(call.header("Request-Id"))
            #expect(requestID.hasPrefix("req_") && requestID.count == 18)
        }
    }

    @Test func unknownPathsAndMethodsAreStripeStyle404s() async throws {
        try await LiveServer.with { server in
            let unknown = try await HTTPCall.send("GET", server.baseURL.appendingPathComponent("v1/nothing"))
            #expect(unknown.status == 404)
            #expect(unknown.error?["type"] == "invalid_request_error")
            #expect(unknown.error?["message"]?.stringValue?.hasPrefix("Unrecognized request URL (GET: /v1/nothing)") == true)
            #expect(unknown.header("Request-Id") != nil)
            let wrongMethod = try await HTTPCall.send("DELETE", server.baseURL.appendingPathComponent("healthz"))
            #expect(wrongMethod.status == 404)
            #expect(wrongMethod.error?["message"]?.stringValue?.contains("DELETE: /healthz") == true)
        }
    }

    @Test(.scaledTimeLimit(minutes: 2))
    func readyzFollowsTheDatabaseWithoutARestart() async throws {
        let cluster = try await TestPostgres.startThrowawayCluster()
        defer { TestPostgres.destroy(cluster) }
        let server = try await LiveServer.start(database: try cluster.configuration())
        let readyz = server.baseURL.appendingPathComponent("readyz")
        #expect(try await HTTPCall.send("GET", readyz).status == 200)

        try await cluster.stopServer()
        let down = try await HTTPCall.send("GET", readyz)
        #expect(down.status == 503)
        #expect(down.header("Stripe-Should-Retry") == "true")
        #expect(down.json["database"] == "unreachable")
        #expect(try await HTTPCall.send("GET", server.baseURL.appendingPathComponent("healthz")).status == 200)

        try await cluster.startServer()
        let up = try await HTTPCall.send("GET", readyz)
        #expect(up.status == 200)
        await server.stop()
    }
}
