import Foundation
import PurseModels
import PurseServer
import TestSupport
import Testing

@Suite("Bad requests are clear 4xx errors")
struct RequestErrorTests {
    @Test func aBodyOverTheLimitIs413() async throws {
        try await LiveServer.with(configuration: ServerConfiguration(port: 0, logLevel: .warning, maxBodySize: 4096)) { server in
            let api = try await server.makeAccount().secret
            let call = try await api.post("/v1/customers", "description=" + String(repeating: "x", count: 5000))
            #expect(call.status == 413)
            #expect(call.error?["type"] == "invalid_request_error")
            #expect(try await api.get("/v1/customers").json["data"] == [])
        }
    }

    @Test(arguments: [
        [UInt8]("name=".utf8) + [0xFF, 0xFE],
        Array("name=%C3%28".utf8),
        Array("a[b=1".utf8),
        Array("name=%G1".utf8),
    ])
    func malformedBodiesAre400s(body: [UInt8]) async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            let connection = try await RawHTTPConnection.open(port: server.port)
            try await connection.write(
                "POST /v1/customers HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(account.secretKey)\r\n"
                    + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
            )
            try await connection.write(body)
            let response = try await connection.response()
            #expect(response.status == 400)
            #expect(response.body.contains("invalid_request_error"))
        }
    }

    @Test(arguments: [
        "[1, 2]", "{\"a\": ", "{\"name\": \"\\ud800\"}", "{\"expand\": {}}",
        String(repeating: "{\"a\":", count: 100) + "1" + String(repeating: "}", count: 100),
    ])
    func malformedJSONIs400(body: String) async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let call = try await api.post("/v1/customers", body, headers: ["Content-Type": "application/json"])
            #expect(call.status == 400)
            #expect(call.error?["type"] == "invalid_request_error")
        }
    }

    @Test func stripeVersionIsCheckedAndEchoed() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let plain = try await api.get("/v1/customers")
            #expect(plain.header("Stripe-Version") == "2026-10-28.endive")
            let ios = try await api.get("/v1/customers", headers: ["Stripe-Version": "2020-08-27; elements_beta=v1"])
            #expect(ios.status == 200)
            #expect(ios.header("Stripe-Version") == "2020-08-27")
            let bad = try await api.get("/v1/customers", headers: ["Stripe-Version": "yesterday"])
            #expect(bad.status == 400)
            #expect(bad.error?["message"] == "Invalid Stripe API version: yesterday")
            #expect(bad.header("Request-Id") != nil)
        }
    }

    /// Bodies near the size limit built to be slow to decode.
    enum HugeBody: String, CaseIterable, CustomStringConvertible {
        case formArrayOf10000, formHashOf10000, form10001Pairs, jsonArrayOf150000, jsonHashOf40000

        var description: String { rawValue }

        var contentType: String {
            rawValue.hasPrefix("json") ? "application/json" : "application/x-www-form-urlencoded"
        }

        var body: String {
            switch self {
            case .formArrayOf10000:
                return Array(repeating: "preferred_locales[]=en", count: 10_000).joined(separator: "&")
            case .formHashOf10000:
                return (0..<10_000).map { "metadata[k\($0)]=v" }.joined(separator: "&")
            case .form10001Pairs:
                return (0..<10_001).map { "a\($0)=1" }.joined(separator: "&")
            case .jsonArrayOf150000:
                let elements = Array(repeating: "\"en\"", count: 150_000).joined(separator: ",")
                return "{\"preferred_locales\": [\(elements)]}"
            case .jsonHashOf40000:
                let entries = (0..<40_000).map { "\"k\($0)\": \"v\"" }.joined(separator: ",")
                return "{\"metadata\": {\(entries)}}"
            }
        }
    }

    /// Each refused with a 400 that changes nothing. (How fast is the benchmark's business; the
    /// decoders' linearity is in FormParserTests and the fuzz runs.)
    @Test(arguments: HugeBody.allCases)
    func hugeBodiesAreRefusedAndChangeNothing(huge: HugeBody) async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let call = try await api.post("/v1/customers", huge.body, headers: ["Content-Type": huge.contentType])
            #expect(call.status == 400)
            #expect(call.error?["type"] == "invalid_request_error")
            #expect(try await api.get("/v1/customers").json["data"] == [])
        }
    }

    @Test(.scaledTimeLimit(minutes: 2))
    func anUnreachableDatabaseIsA503WithRetry() async throws {
        let cluster = try await TestPostgres.startThrowawayCluster()
        defer { TestPostgres.destroy(cluster) }
        let server = try await LiveServer.start(database: try cluster.configuration())
        let account = try await server.makeAccount()
        #expect(try await account.secret.get("/v1/customers").status == 200)
        try await cluster.stopServer()
        let down = try await account.secret.post("/v1/customers", "name=x")
        #expect(down.status == 503)
        #expect(down.header("Stripe-Should-Retry") == "true")
        #expect(down.error?["type"] == "api_error")
        try await cluster.startServer()
        #expect(try await account.secret.post("/v1/customers", "name=x").status == 200)
        await server.stop()
    }
}
