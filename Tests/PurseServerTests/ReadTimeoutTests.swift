import Foundation
import PurseServer
import TestSupport
import Testing

@Suite("A client that sends slowly cannot hold a connection")
struct ReadTimeoutTests {
    static let oneSecond = ServerConfiguration(port: 0, logLevel: .warning, readTimeout: 1)

    private func head(_ key: String, length: Int) -> String {
        "POST /v1/customers HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(key)\r\n"
            + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(length)\r\n\r\n"
    }

    @Test func aStalledBodyIs408AndChangesNothing() async throws {
        try await LiveServer.with(configuration: Self.oneSecond) { server in
            let account = try await server.makeAccount()
            let connection = try await RawHTTPConnection.open(port: server.port)
            try await connection.write(head(account.secretKey, length: 100) + "name=half")
            let started = ContinuousClock.now
            let response = try await connection.response(timeout: 10)
            #expect(response.status == 408)
            #expect(response.body.contains("invalid_request_error"))
            #expect(ContinuousClock.now - started < .seconds(5))
            #expect(try await account.secret.get("/v1/customers").json["data"] == [])
        }
    }

    /// A byte every 300 ms keeps an idle timer alive forever; the deadline does not move.
    @Test func aTrickledBodyStillTimesOut() async throws {
        try await LiveServer.with(configuration: Self.oneSecond) { server in
            let account = try await server.makeAccount()
            let connection = try await RawHTTPConnection.open(port: server.port)
            try await connection.write(head(account.secretKey, length: 40))
            let trickle = Task {
                for _ in 0..<20 {
                    guard (try? await connection.write("x")) != nil else { return }
                    try? await Task.sleep(for: .milliseconds(300))
                }
            }
            let started = ContinuousClock.now
            let response = try await connection.response(timeout: 10)
            trickle.cancel()
            #expect(response.status == 408)
            #expect(ContinuousClock.now - started < .seconds(4))
        }
    }

    @Test func anIdleConnectionIsClosed() async throws {
        try await LiveServer.with(configuration: Self.oneSecond) { server in
            let connection = try await RawHTTPConnection.open(port: server.port)
            let started = ContinuousClock.now
            // Nothing arrives before the server closes: reading ends with no response at all.
            await #expect(throws: (any Error).self) { try await connection.response(timeout: 10) }
            #expect(ContinuousClock.now - started < .seconds(5))
        }
    }

    @Test func aConnectionServesRequestsSlowerThanTheTimeoutApart() async throws {
        try await LiveServer.with(configuration: Self.oneSecond) { server in
            let account = try await server.makeAccount()
            let connection = try await RawHTTPConnection.open(port: server.port)
            for name in ["a", "b", "c"] {
                let body = "name=\(name)"
                try await connection.write(head(account.secretKey, length: body.utf8.count) + body)
                #expect(try await connection.response(timeout: 10).status == 200)
                try await Task.sleep(for: .milliseconds(600))
            }
        }
    }
}
