import TestSupport
import Testing

@testable import Postgres

/// ``PostgresConnection/withSavepoint(_:)``: a part of a transaction that can fail alone.
@Suite("Savepoints")
struct SavepointTests {
    struct Refused: Error {}

    @Test func aSavepointThatThrowsIsUndoneAndTheTransactionGoesOn() async throws {
        try await TestPostgres.withDatabase { client in
            try await client.query("CREATE TABLE items (n int)")
            try await client.withTransaction { connection in
                try await connection.query("INSERT INTO items VALUES (\(1))")
                await #expect(throws: Refused.self) {
                    try await connection.withSavepoint { connection in
                        try await connection.query("INSERT INTO items VALUES (\(2))")
                        throw Refused()
                    }
                }
                try await connection.withSavepoint { connection in
                    try await connection.query("INSERT INTO items VALUES (\(3))")
                }
            }
            let rows = try await client.query("SELECT array_agg(n ORDER BY n)::text AS ns FROM items")
            #expect(try rows[0]["ns", as: String.self] == "{1,3}")
        }
    }

    /// A statement queued for its first use and discarded unsent (its savepoint threw) was never
    /// prepared on the server: its next use prepares it, rather than naming a statement that is
    /// not there (SQLSTATE 26000).
    @Test func aDiscardedFirstUseIsPreparedAtTheNextUse() async throws {
        try await TestPostgres.withDatabase { client in
            try await client.query("CREATE TABLE items (n int)")
            try await client.withTransaction { connection in
                await #expect(throws: Refused.self) {
                    try await connection.withSavepoint { connection in
                        try connection.queryLater("INSERT INTO items VALUES (\(1))")
                        throw Refused()
                    }
                }
                try await connection.query("INSERT INTO items VALUES (\(2))")
            }
            let rows = try await client.query("SELECT array_agg(n ORDER BY n)::text AS ns FROM items")
            #expect(try rows[0]["ns", as: String.self] == "{2}")
        }
    }

    /// A failed statement aborts the transaction block; rolling back to the savepoint revives it.
    @Test func aFailedStatementInsideLeavesTheTransactionUsable() async throws {
        try await TestPostgres.withDatabase { client in
            try await client.query("CREATE TABLE items (n int UNIQUE)")
            try await client.withTransaction { connection in
                try await connection.query("INSERT INTO items VALUES (\(1))")
                let error = await #expect(throws: PGError.self) {
                    try await connection.withSavepoint { connection in
                        try connection.queryLater("INSERT INTO items VALUES (\(2))")
                        try await connection.query("INSERT INTO items VALUES (\(1))")
                    }
                }
                #expect(error?.sqlState == .uniqueViolation)
                try await connection.query("INSERT INTO items VALUES (\(4))")
            }
            let rows = try await client.query("SELECT array_agg(n ORDER BY n)::text AS ns FROM items")
            #expect(try rows[0]["ns", as: String.self] == "{1,4}")
        }
    }

    /// `SAVEPOINT` and `RELEASE` travel with the statements around them, and a savepoint that
    /// threw before sending anything is forgotten without a round trip.
    @Test func savepointsCostNoRoundTripOfTheirOwn() async throws {
        try await TestPostgres.withDatabase { client in
            try await client.query("CREATE TABLE items (n int)")
            try await client.withTransaction { connection in
                try await connection.query("INSERT INTO items VALUES (\(1))")
                let before = connection.exchangeCount
                try await connection.withSavepoint { connection in
                    try connection.queryLater("INSERT INTO items VALUES (\(2))")
                }
                await #expect(throws: Refused.self) {
                    try await connection.withSavepoint { connection in
                        try connection.queryLater("INSERT INTO items VALUES (\(3))")
                        throw Refused()
                    }
                }
                #expect(connection.exchangeCount == before)
                try await connection.query("INSERT INTO items VALUES (\(4))")
                #expect(connection.exchangeCount == before + 1)
            }
            let rows = try await client.query("SELECT array_agg(n ORDER BY n)::text AS ns FROM items")
            #expect(try rows[0]["ns", as: String.self] == "{1,2,4}")
        }
    }
}
