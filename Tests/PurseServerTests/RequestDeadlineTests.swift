import Postgres
import TestSupport
import Testing

@testable import PurseServer

/// `--request-timeout`: no request runs past its deadline, whatever it waits on. The driver keeps
/// the deadline (Tests/PostgresTests/DeadlineTests.swift); these are what a client sees.
@Suite("Request deadline")
struct RequestDeadlineTests {
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
            #expect(answer.error?["message"]?.stringValue?.contains("Nothing was changed") == true, "\(answer.json)")
            #expect(try await account.secret.get("/v1/customers/\(customer)").json["name"] == "Before")
        }
    }

    /// A request waiting for a pooled connection answers at its deadline too, before the pool's
    /// own checkout timeout, and the request after it is served.
    @Test func aRequestWaitingForAConnectionAnswersAtItsDeadline() async throws {
        let configuration = ServerConfiguration(port: 0, logLevel: .warning, requestTimeout: .seconds(1))
        let pool = PostgresClient.Options(maxConnections: 1, checkoutTimeout: .seconds(600))
        try await LiveServer.with(configuration: configuration, poolOptions: pool) { server in
            let account = try await server.makeAccount()
            let customer = try #require(try await account.secret.post("/v1/customers", "name=Before").json["id"]?.stringValue)
            let answer = try await server.pool.withConnection { _ in
                try await account.secret.post("/v1/customers/\(customer)", "name=After")
            }
            #expect(answer.status == 503, "\(answer.json)")
            #expect(answer.error?["message"]?.stringValue?.contains("Nothing was changed") == true, "\(answer.json)")
            #expect(server.pool.statistics.timeouts == 0)
            #expect(try await account.secret.get("/v1/customers/\(customer)").json["name"] == "Before")
        }
    }
}
