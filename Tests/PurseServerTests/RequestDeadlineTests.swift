import Foundation
import NIOPosix
import Postgres
import PurseCore
import TestSupport
import Testing

@testable import PurseServer

/// `--request-timeout`: no request runs past its deadline, whatever it waits on.
@Suite("Request deadline")
struct RequestDeadlineTests {
    private static func deadline(_ limit: Duration, grace: Duration = .milliseconds(300)) -> RequestDeadline {
        RequestDeadline(limit: limit, grace: grace, timerLoop: MultiThreadedEventLoopGroup.singleton.next())
    }

    @Test func workWithinTheDeadlineAnswersAsItIs() async throws {
        #expect(try await Self.deadline(.seconds(60)).run { 42 } == 42)
        await #expect(throws: PurseError.self) {
            try await Self.deadline(.seconds(60)).run { () async throws -> Int in throw PurseError.missingParameter("x") }
        }
    }

    /// Stopped at a wait: nothing was under way, so nothing changed.
    @Test func workStoppedAtAWaitIsADeadlineError() async throws {
        let error = await #expect(throws: APIError.self) {
            // A grace no busy machine runs out of: a cancelled sleep stops at once.
            try await Self.deadline(.milliseconds(200), grace: .seconds(30)).run { () async throws -> Int in
                try await Task.sleep(for: .seconds(120))
                return 0
            }
        }
        #expect(error?.status == .serviceUnavailable)
        #expect(error?.message.contains("Nothing was changed") == true)
    }

    /// Work that cannot be stopped (its database vanished without a word) is not waited for.
    @Test func workThatDoesNotStopIsAnsweredWithoutIt() async throws {
        let error = await #expect(throws: APIError.self) {
            try await Self.deadline(.milliseconds(200)).run { () async -> Int in
                await withCheckedContinuation { continuation in
                    DispatchQueue.global().asyncAfter(deadline: .now() + 120) { continuation.resume(returning: 0) }
                }
            }
        }
        #expect(error?.message.contains("may or may not") == true)
    }

    /// A request waiting on a row another transaction holds: at the deadline its statement is
    /// cancelled on the server, it answers 503, and nothing of it is applied.
    @Test func aRequestWaitingOnALockAnswersAtItsDeadline() async throws {
        let configuration = ServerConfiguration(port: 0, logLevel: .warning, requestTimeout: .seconds(1))
        try await LiveServer.with(configuration: configuration) { server in
            let account = try await server.makeAccount()
            let customer = try #require(try await account.secret.post("/v1/customers", "name=Before").json["id"]?.stringValue)
            let blocker = PostgresClient(configuration: server.pool.configuration, options: .init(maxConnections: 1))
            // The row stays locked until the request has answered: only its deadline can end it.
            let answer = try await blocker.withTransaction { connection in
                try await connection.query("SELECT 1 FROM customers WHERE id = \(customer) FOR UPDATE")
                return try await account.secret.post("/v1/customers/\(customer)", "name=After")
            }
            await blocker.close()
            #expect(answer.status == 503, "\(answer.json)")
            #expect(answer.header("Stripe-Should-Retry") == "true")
            #expect(try await account.secret.get("/v1/customers/\(customer)").json["name"] == "Before")
        }
    }
}
