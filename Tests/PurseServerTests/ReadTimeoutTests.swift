import Foundation
import Postgres
import PurseServer
import TestSupport
import Testing

@Suite("A client that sends slowly cannot hold a connection")
struct ReadTimeoutTests {
    /// Two seconds: short for a test, yet long enough that a loaded machine running every suite
    /// at once still sends a request's first bytes within it.
    static let twoSeconds = ServerConfiguration(port: 0, logLevel: .warning, readTimeout: 2)

    /// Connects and sends the first bytes in one step, so no pause between the two can pass for
    /// an idle connection.
    private func open(_ server: LiveServer, sending text: String) async throws -> RawHTTPConnection {
        try await Blocking.run {
            let connection = try RawHTTPConnection(port: server.port)
            try connection.send(text)
            return connection
        }
    }

    private func head(_ key: String, length: Int) -> String {
        "POST /v1/customers HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(key)\r\n"
            + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(length)\r\n\r\n"
    }

    @Test func aStalledBodyIs408AndChangesNothing() async throws {
        try await LiveServer.with(configuration: Self.twoSeconds) { server in
            let account = try await server.makeAccount()
            let connection = try await open(server, sending: head(account.secretKey, length: 100) + "name=half")
            let response = try await connection.response(timeout: 20)
            #expect(response.status == 408)
            #expect(response.body.contains("invalid_request_error"))
            #expect(try await account.secret.get("/v1/customers").json["data"] == [])
        }
    }

    /// A byte every 300 ms keeps an idle timer alive forever; the deadline does not move, so the
    /// 408 comes long before the 200 bytes would have (a minute: every suite at once under
    /// ThreadSanitizer once held the 2 s deadline's timer back for over the 12 s of 40 bytes).
    @Test func aTrickledBodyStillTimesOut() async throws {
        try await LiveServer.with(configuration: Self.twoSeconds) { server in
            let account = try await server.makeAccount()
            let connection = try await open(server, sending: head(account.secretKey, length: 200))
            let trickle = Task {
                for _ in 0..<200 {
                    guard (try? await connection.write("x")) != nil else { return }
                    try? await Task.sleep(for: .milliseconds(300))
                }
            }
            let response = try await connection.response(timeout: 70)
            trickle.cancel()
            #expect(response.status == 408)
        }
    }

    /// A body that times out while the request is still waiting for the database (its key's
    /// lookup, held here behind a lock) cannot be answered at once. The connection still does
    /// not stay open forever: it closes, unanswered, when the 408's grace (10 s) runs out, and
    /// the request changes nothing.
    @Test func aTimedOutRequestThatCannotBeAnsweredIsClosedAfterAGrace() async throws {
        try await LiveServer.with(configuration: Self.twoSeconds) { server in
            let account = try await server.makeAccount()
            let locker = try await PostgresConnection.connect(configuration: server.pool.configuration)
            try await locker.simpleQuery("BEGIN; LOCK TABLE api_keys IN ACCESS EXCLUSIVE MODE")
            let connection = try await open(server, sending: head(account.secretKey, length: 100) + "name=half")
            let started = ContinuousClock.now
            await #expect(throws: (any Error).self) { try await connection.response(timeout: 40) }
            let waited = ContinuousClock.now - started
            try await locker.simpleQuery("ROLLBACK")
            locker.close()
            // The body's 2 s and then the grace's 10 s, not the 40 s this side would wait.
            #expect(waited > .seconds(11))
            #expect(waited < .seconds(30))
            // The request resumes once the lock is gone; give it a moment to finish (or not).
            try await Task.sleep(for: .milliseconds(500))
            #expect(try await account.secret.get("/v1/customers").json["data"] == [])
        }
    }

    /// The server closes it, with no answer; the minute is only how long this side waits (a
    /// loaded machine running every suite under ThreadSanitizer once took 15 s to close it).
    @Test func anIdleConnectionIsClosed() async throws {
        try await LiveServer.with(configuration: Self.twoSeconds) { server in
            let connection = try await RawHTTPConnection.open(port: server.port)
            #expect(try await connection.closesUnanswered(within: 60))
        }
    }

    /// The handler's one timer, set when the connection opened, fires while the connection has
    /// time left; it must wait on for the deadline the response set, then close.
    ///
    /// The client's side runs on one Dispatch thread from connecting to the close, so its pauses
    /// are the operating system's and not the cooperative pool's: with every suite running at
    /// once, a task resuming from `Task.sleep` once reached a four-second server after its
    /// deadline, and the connection was rightly closed before the request. Under
    /// ThreadSanitizer a request sent 1.6 s before that deadline still missed it: the server
    /// gives eight seconds, and the request comes halfway.
    @Test func aConnectionIdleAfterAResponseIsClosedWhenItsOwnTimeoutRunsOut() async throws {
        let eightSeconds = ServerConfiguration(port: 0, logLevel: .warning, readTimeout: 8)
        try await LiveServer.with(configuration: eightSeconds) { server in
            let account = try await server.makeAccount()
            let body = "name=a"
            let request = head(account.secretKey, length: body.utf8.count) + body
            let (status, idle) = try await Blocking.run { () throws -> (Int, Duration?) in
                let connection = try RawHTTPConnection(port: server.port)
                Thread.sleep(forTimeInterval: 4)
                try connection.send(request)
                let status = try connection.readResponse(timeout: 30).status
                let answered = ContinuousClock.now
                do {
                    _ = try connection.readResponse(timeout: 30)
                    return (status, nil)
                } catch {
                    return (status, ContinuousClock.now - answered)
                }
            }
            #expect(status == 200)
            // Nothing more arrives: reading ends in the close, not in a second response.
            let idleTime = try #require(idle)
            #expect(idleTime > .milliseconds(6000))
            #expect(idleTime < .seconds(25))
        }
    }

    /// Pauses of one second under a four-second timeout; together they are well over it. The
    /// client's side runs on one Dispatch thread, as above, so a pause is what the test says.
    @Test func aConnectionServesRequestsSlowerThanTheTimeoutApart() async throws {
        let fourSeconds = ServerConfiguration(port: 0, logLevel: .warning, readTimeout: 4)
        try await LiveServer.with(configuration: fourSeconds) { server in
            let account = try await server.makeAccount()
            let requests = ["a", "b", "c", "d", "e", "f", "g"].map { name in
                let body = "name=\(name)"
                return head(account.secretKey, length: body.utf8.count) + body
            }
            let statuses = try await Blocking.run { () throws -> [Int] in
                let connection = try RawHTTPConnection(port: server.port)
                var statuses: [Int] = []
                for (index, request) in requests.enumerated() {
                    if index > 0 { Thread.sleep(forTimeInterval: 1) }
                    try connection.send(request)
                    statuses.append(try connection.readResponse(timeout: 20).status)
                }
                return statuses
            }
            #expect(statuses == Array(repeating: 200, count: requests.count))
        }
    }
}
