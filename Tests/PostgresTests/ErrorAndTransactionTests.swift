import Foundation
import NIOConcurrencyHelpers
import TestSupport
import Testing

@testable import Postgres

@Suite("Errors and transactions")
struct ErrorAndTransactionTests {
    @Test func uniqueViolationCarriesSQLStateAndConstraintButNoValues() async throws {
        try await TestPostgres.withDatabase { client in
            try await client.query("CREATE TABLE cards (token text CONSTRAINT cards_token_key UNIQUE)")
            let secret = "4242424242424242"
            try await client.query("INSERT INTO cards (token) VALUES (\(secret))")
            let error = await #expect(throws: PGError.self) {
                try await client.query("INSERT INTO cards (token) VALUES (\(secret))")
            }
            #expect(error?.kind == .server)
            #expect(error?.sqlState == .uniqueViolation)
            #expect(error?.constraint == "cards_token_key")
            #expect(error?.isUnavailable == false)
            // PostgreSQL puts the duplicate key in `detail`; the error's message never holds it.
            #expect(error?.message.contains(secret) == false)
        }
    }

    @Test func syntaxErrorsAreServerErrors() async throws {
        try await TestPostgres.withDatabase { client in
            let error = await #expect(throws: PGError.self) { try await client.query("SELEC 1") }
            #expect(error?.sqlState == SQLState("42601"))
        }
    }

    @Test func transactionCommitsOnReturn() async throws {
        try await TestPostgres.withDatabase { client in
            try await client.query("CREATE TABLE items (n int)")
            try await client.withTransaction { connection in
                try await connection.query("INSERT INTO items VALUES (\(1))")
                try await connection.query("INSERT INTO items VALUES (\(2))")
            }
            let rows = try await client.query("SELECT count(*) AS n FROM items")
            #expect(try rows[0]["n", as: Int.self] == 2)
        }
    }

    @Test func transactionRollsBackOnThrow() async throws {
        struct Refused: Error {}
        try await TestPostgres.withDatabase { client in
            try await client.query("CREATE TABLE items (n int)")
            await #expect(throws: Refused.self) {
                try await client.withTransaction { connection in
                    try await connection.query("INSERT INTO items VALUES (\(1))")
                    throw Refused()
                }
            }
            await #expect(throws: PGError.self) {
                try await client.withTransaction { connection in
                    try await connection.query("INSERT INTO items VALUES (\(2))")
                    try await connection.query("INSERT INTO items VALUES ('not a number')")
                }
            }
            let rows = try await client.query("SELECT count(*) AS n FROM items")
            #expect(try rows[0]["n", as: Int.self] == 0)
        }
    }

    @Test func aTransactionWhoseFailedStatementWasCaughtDoesNotReportACommit() async throws {
        // PostgreSQL answers COMMIT in a failed transaction with ROLLBACK, not an error.
        try await TestPostgres.withDatabase { client in
            try await client.query("CREATE TABLE items (n int)")
            let error = await #expect(throws: PGError.self) {
                try await client.withTransaction { connection in
                    try await connection.query("INSERT INTO items VALUES (\(1))")
                    _ = try? await connection.query("INSERT INTO items VALUES ('not a number')")
                }
            }
            #expect(error?.sqlState == .inFailedTransaction)
            let rows = try await client.query("SELECT count(*) AS n FROM items")
            #expect(try rows[0]["n", as: Int.self] == 0)
            // The connection went back to the pool usable.
            try await client.withTransaction { _ = try await $0.query("INSERT INTO items VALUES (\(2))") }
            #expect(try await client.query("SELECT count(*) AS n FROM items")[0]["n", as: Int.self] == 1)
        }
    }

    @Test func aTransactionRunsOnOneConnection() async throws {
        try await TestPostgres.withDatabase { client in
            let (first, second, transactionIDs) = try await client.withTransaction { connection in
                let a = try await connection.query("SELECT pg_backend_pid() AS pid, txid_current() AS tx")
                let b = try await connection.query("SELECT pg_backend_pid() AS pid, txid_current() AS tx")
                return (
                    try a[0]["pid", as: Int32.self], try b[0]["pid", as: Int32.self],
                    [try a[0]["tx", as: Int.self], try b[0]["tx", as: Int.self]]
                )
            }
            #expect(first == second)
            #expect(transactionIDs[0] == transactionIDs[1])
        }
    }

    /// `BEGIN` travels with a transaction's first statement. Whatever that statement is, or
    /// however it fails, the block must be open for the statements after it.
    @Test func theFirstStatementCarriesTheBegin() async throws {
        struct Refused: Error {}
        try await TestPostgres.withDatabase(options: .init(maxConnections: 1)) { client in
            try await client.query("CREATE TABLE items (n int)")
            // The first statement is refused before it is sent (a NUL in text): the BEGIN must
            // still go with the next one, so this insert is rolled back with the rest.
            await #expect(throws: Refused.self) {
                try await client.withTransaction { connection in
                    let refusedBeforeSending = (try? await connection.query("SELECT \("a\u{0}b")::text AS t")) == nil
                    try await connection.query("INSERT INTO items VALUES (\(1))")
                    let inTransaction = connection.isInTransaction
                    #expect(refusedBeforeSending && inTransaction)
                    throw Refused()
                }
            }
            // A first statement that fails on the server leaves the block failed, then rolled back.
            await #expect(throws: PGError.self) {
                try await client.withTransaction { connection in
                    try await connection.query("SELECT 1 / \(0) AS n")
                }
            }
            // A first statement that is new to the connection is prepared, then sent with the BEGIN.
            let (inBlock, rows) = try await client.withTransaction { connection in
                let rows = try await connection.query("INSERT INTO items VALUES (\(2)) RETURNING n")
                return (connection.isInTransaction, rows)
            }
            #expect(inBlock)
            #expect(try rows[0]["n", as: Int.self] == 2)
            // A body that runs no statement, and one whose first is simple-query text.
            try await client.withTransaction { _ in }
            let simpleInBlock = try await client.withTransaction { connection in
                try await connection.simpleQuery("INSERT INTO items VALUES (3)")
                return connection.isInTransaction
            }
            #expect(simpleInBlock)
            let count = try await client.query("SELECT count(*) AS n FROM items")
            #expect(try count[0]["n", as: Int.self] == 2)
            // The connection is still good for statements outside any block.
            #expect(try await client.withConnection { $0.isInTransaction } == false)
        }
    }

    /// A statement queued with `queryLater` runs before whatever the connection sends next, in
    /// the same round trip, and its failure fails the transaction like any other statement's.
    @Test func queuedStatementsTravelWithTheNextRoundTrip() async throws {
        struct Refused: Error {}
        try await TestPostgres.withDatabase(options: .init(maxConnections: 1)) { client in
            try await client.query("CREATE TABLE items (n int PRIMARY KEY)")
            // Seen by the next statement of the same transaction, and committed with the COMMIT.
            let seen = try await client.withTransaction { connection in
                try connection.queryLater("INSERT INTO items VALUES (\(1))")
                try connection.queryLater("INSERT INTO items VALUES (\(2))")
                let rows = try await connection.query("SELECT count(*) AS n FROM items")
                try connection.queryLater("INSERT INTO items VALUES (\(3))")
                return try rows[0]["n", as: Int.self]
            }
            #expect(seen == 2)
            // A transaction of queued statements only: BEGIN, the statements and COMMIT in one trip.
            try await client.withTransaction { connection in
                try connection.queryLater("INSERT INTO items VALUES (\(4))")
            }
            #expect(try await Self.count(client) == 4)
            // A queued statement that fails is thrown by the COMMIT, and the whole block is undone.
            await #expect(throws: PGError.self) {
                try await client.withTransaction { connection in
                    try await connection.query("INSERT INTO items VALUES (\(5))")
                    try connection.queryLater("INSERT INTO items VALUES (\(1))")  // a duplicate key
                }
            }
            // ... or by the statement it went ahead of, which does not run.
            await #expect(throws: PGError.self) {
                try await client.withTransaction { connection in
                    try connection.queryLater("INSERT INTO items VALUES (\(1))")
                    try await connection.query("INSERT INTO items VALUES (\(6))")
                }
            }
            #expect(try await Self.count(client) == 4)
            // A body that throws sends nothing it queued.
            await #expect(throws: Refused.self) {
                try await client.withTransaction { connection in
                    try connection.queryLater("INSERT INTO items VALUES (\(7))")
                    throw Refused()
                }
            }
            // A value libpq cannot send is refused when queued, not later.
            try await client.withTransaction { connection -> Void in
                #expect(throws: PGError.self) { try connection.queryLater("INSERT INTO items VALUES (length(\("a\u{0}b")))") }
            }
            // Outside a transaction the queue is sent when the body returns.
            try await client.withConnection { connection in
                try connection.queryLater("INSERT INTO items VALUES (\(8))")
            }
            #expect(try await Self.count(client) == 5)
            #expect(try await client.withConnection { $0.isInTransaction } == false)
        }
    }

    /// The server ends the connection part-way through a pipeline (here the backend terminates
    /// itself, as an administrator or a restart would): the rest of the pipeline's results never
    /// come. The caller gets a connection failure (at COMMIT, an unknown outcome), nothing of the transaction is kept, and the
    /// pool's next caller gets a new connection.
    @Test(arguments: [false, true])
    func aConnectionLostMidPipelineFailsTheTransactionAndIsReplaced(atCommit: Bool) async throws {
        try await TestPostgres.withDatabase(options: .init(maxConnections: 1)) { client in
            try await client.query("CREATE TABLE items (n int PRIMARY KEY)")
            let terminate: PostgresQuery = "SELECT pg_terminate_backend(pg_backend_pid())"
            let error = await #expect(throws: PGError.self) {
                try await client.withTransaction { connection in
                    try await connection.query("INSERT INTO items VALUES (\(1))")
                    try connection.queryLater("INSERT INTO items VALUES (\(2))")
                    if atCommit {
                        // The termination travels just ahead of the COMMIT, whose answer never comes.
                        try connection.queryLater(terminate)
                    } else {
                        try await connection.query(terminate)
                        try await connection.query("INSERT INTO items VALUES (\(3))")
                    }
                }
            }
            // Lost with the COMMIT on its way, the client cannot know whether it committed (here
            // it did not: the termination ran first); only reading tells.
            #expect(error?.kind == (atCommit ? .commitOutcomeUnknown : .connectionFailed))
            #expect(error?.isUnavailable == true)
            #expect(try await Self.count(client) == 0)
            try await client.withTransaction { connection in
                try connection.queryLater("INSERT INTO items VALUES (\(4))")
            }
            #expect(try await Self.count(client) == 1)
        }
    }

    private static func count(_ client: PostgresClient) async throws -> Int {
        try await client.query("SELECT count(*) AS n FROM items")[0]["n", as: Int.self]
    }

    @Test func aBodyThatLeavesATransactionOpenIsRolledBack() async throws {
        try await TestPostgres.withDatabase(options: .init(maxConnections: 1)) { client in
            try await client.query("CREATE TABLE items (n int)")
            try await client.withConnection { connection in
                try await connection.simpleQuery("BEGIN")
                try await connection.query("INSERT INTO items VALUES (\(1))")
            }
            let rows = try await client.query("SELECT count(*) AS n FROM items")
            #expect(try rows[0]["n", as: Int.self] == 0)
        }
    }

    @Test func preparedStatementsAreReusedAndSurviveTheCacheLimit() async throws {
        try await TestPostgres.withDatabase(options: .init(maxConnections: 1)) { client in
            let limit = PostgresConnection.preparedStatementLimit
            try await client.withConnection { connection in
                for round in 0..<3 {
                    for n in 0..<(limit / 2 + 10) {
                        let rows = try await connection.query(.init(unsafeSQL: "SELECT \(n) + $1::int8 AS v", binds: [round.postgresBind]))
                        #expect(try rows[0]["v", as: Int.self] == n + round)
                    }
                }
                let prepared = try await connection.query("SELECT count(*) AS n FROM pg_prepared_statements")
                #expect(try prepared[0]["n", as: Int.self] <= limit)
            }
        }
    }
}

/// Transactions the server gives up on because of each other (a deadlock) run again when the
/// caller opts in, and the conflict is refused as a domain error when it does not.
@Suite("Conflicting transactions")
struct ConflictTests {
    /// Two transactions lock two rows in opposite orders: PostgreSQL aborts one (40P01).
    private static func deadlock(_ client: PostgresClient, retries: Int) async throws -> [Result<Void, any Error>] {
        try await client.query("CREATE TABLE IF NOT EXISTS pair (id int PRIMARY KEY, n int)")
        try await client.query("INSERT INTO pair VALUES (1, 0), (2, 0) ON CONFLICT DO NOTHING")
        let (firstHolds, secondHolds) = (Gate(), Gate())
        let attempts = Counter()
        func run(first: Int, second: Int, holds: Gate, other: Gate) async -> Result<Void, any Error> {
            do {
                try await client.withTransaction(retryingConflicts: retries) { connection in
                    let attempt = attempts.next()
                    try await connection.query("UPDATE pair SET n = n + 1 WHERE id = \(first)")
                    if attempt <= 2 {
                        // Only the first attempts meet in the middle; a retry runs straight through.
                        holds.open()
                        await other.wait()
                    }
                    try await connection.query("UPDATE pair SET n = n + 1 WHERE id = \(second)")
                }
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        async let one = run(first: 1, second: 2, holds: firstHolds, other: secondHolds)
        async let two = run(first: 2, second: 1, holds: secondHolds, other: firstHolds)
        return await [one, two]
    }

    @Test func aDeadlockedTransactionRunsAgainWhenTheCallerOptsIn() async throws {
        try await TestPostgres.withDatabase { client in
            let outcomes = try await Self.deadlock(client, retries: 2)
            for outcome in outcomes { try outcome.get() }
            let rows = try await client.query("SELECT sum(n) AS total FROM pair")
            #expect(try rows[0]["total", as: Int.self] == 4, "both transactions' two updates, each once")
        }
    }

    @Test func withoutRetriesTheDeadlockIsATransientConflict() async throws {
        try await TestPostgres.withDatabase { client in
            let outcomes = try await Self.deadlock(client, retries: 0)
            let failures = outcomes.compactMap { outcome -> PGError? in
                if case .failure(let error) = outcome { return error as? PGError }
                return nil
            }
            #expect(failures.count == 1)
            #expect(failures.first?.sqlState == .deadlockDetected)
            #expect(failures.first?.isTransientConflict == true)
        }
    }
}

/// Numbers attempts across the tasks of a test.
private final class Counter: Sendable {
    private let value = NIOLockedValueBox(0)

    func next() -> Int {
        value.withLockedValue { value in
            value += 1
            return value
        }
    }
}
