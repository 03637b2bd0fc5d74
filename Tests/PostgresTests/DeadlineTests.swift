import TestSupport
import Testing

@testable import Postgres

/// ``PostgresDeadline``: the caller's deadline ends every wait of the driver, with no timer of
/// the caller's own.
@Suite("Deadlines")
struct DeadlineTests {
    private static func within<Result>(
        _ limit: Duration, grace: Duration = .seconds(30), _ body: () async throws -> Result
    ) async throws -> Result {
        try await PostgresDeadline.$current.withValue(PostgresDeadline(.now + limit, grace: grace), operation: body)
    }

    @Test func aWaitForAConnectionEndsAtTheDeadlineNotTheCheckoutTimeout() async throws {
        let options = PostgresClient.Options(maxConnections: 1, checkoutTimeout: .seconds(600))
        try await TestPostgres.withDatabase(options: options) { client in
            let (holding, release) = (Gate(), Gate())
            async let holder: Void = client.withConnection { _ in
                holding.open()
                await release.wait()
            }
            await holding.wait()
            await #expect(throws: CancellationError.self) {
                try await Self.within(.milliseconds(200)) { try await client.query("SELECT 1") }
            }
            #expect(client.statistics.timeouts == 0, "the caller's deadline, not the pool's timeout")
            #expect(client.statistics.waiting == 0)
            release.open()
            try await holder
        }
    }

    @Test func aStatementRunningAtTheDeadlineIsCancelledOnTheServer() async throws {
        try await TestPostgres.withDatabase(options: .init(maxConnections: 1)) { client in
            await #expect(throws: CancellationError.self) {
                try await Self.within(.milliseconds(300)) { try await client.query("SELECT pg_sleep(600)") }
            }
            // Cancelled, not abandoned: the same connection serves the next caller.
            let rows = try await client.query(
                "SELECT count(*) AS sleeping FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active'"
            )
            #expect(try rows[0]["sleeping", as: Int.self] == 0)
            #expect(client.statistics.open == 1)
        }
    }

    @Test func aTransactionPastItsDeadlineIsRolledBack() async throws {
        try await TestPostgres.withDatabase(options: .init(maxConnections: 1)) { client in
            try await client.query("CREATE TABLE deadline_items (n int)")
            await #expect(throws: CancellationError.self) {
                try await Self.within(.milliseconds(300)) {
                    try await client.withTransaction { connection in
                        try await connection.query("INSERT INTO deadline_items VALUES (1)")
                        try await connection.query("SELECT pg_sleep(600)")
                    }
                }
            }
            #expect(try await client.query("SELECT count(*) AS n FROM deadline_items")[0]["n", as: Int.self] == 0)
        }
    }

    @Test func nothingIsSentAfterTheDeadline() async throws {
        try await TestPostgres.withDatabase(options: .init(maxConnections: 1)) { client in
            try await client.query("CREATE TABLE late_items (n int)")
            await #expect(throws: CancellationError.self) {
                try await PostgresDeadline.$current.withValue(PostgresDeadline(.now - .seconds(1), grace: .seconds(30))) {
                    try await client.query("INSERT INTO late_items VALUES (1)")
                }
            }
            #expect(try await client.query("SELECT count(*) AS n FROM late_items")[0]["n", as: Int.self] == 0)
        }
    }

    /// A server that stopped answering without closing the socket gets neither the statement's
    /// answer nor the cancel through: past the grace the connection is closed. A statement
    /// outside a transaction block may have committed; inside one it cannot have.
    @Test(arguments: [false, true])
    func aServerThatStopsAnsweringIsGivenUpAfterTheGrace(inTransaction: Bool) async throws {
        var configuration = try TestPostgres.serverConfiguration()
        let proxy = try SilenceableProxy(upstreamPort: try #require(configuration.value(for: "port").flatMap { Int($0) }))
        defer { proxy.stop() }
        configuration.set("host", "127.0.0.1")
        configuration.set("port", String(proxy.port))
        let connection = try await PostgresConnection.connect(configuration: configuration)
        if inTransaction { connection.beginTransaction() }
        try await connection.query("SELECT 1")
        proxy.silence()
        let error = await #expect(throws: PGError.self) {
            try await Self.within(.milliseconds(200), grace: .milliseconds(200)) { try await connection.query("SELECT 2") }
        }
        #expect(error?.kind == (inTransaction ? .connectionFailed : .commitOutcomeUnknown))
        #expect(!connection.isUsable)
        await #expect(throws: PGError.self) { try await connection.query("SELECT 3") }
    }
}
