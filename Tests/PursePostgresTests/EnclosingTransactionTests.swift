import Postgres
import PurseCore
import PursePostgres
import TestSupport
import Testing

/// An enclosing transaction's connection belongs to the task that opened it: the units of work
/// that task asks for join it, and one a child task asks for (child tasks read task-locals too)
/// is refused, never handed the connection its parent may be using at that moment.
@Suite("Enclosing transactions")
struct EnclosingTransactionTests {
    @Test func theOpeningTaskJoinsItAndAChildTaskIsRefused() async throws {
        try await TestPostgres.withDatabase { client in
            let database = PostgresDatabase(pool: client)
            let (own, child) = try await database.enclosingTransaction(retryingConflicts: 0) { _ in
                let own = await Self.outcome { try await database.autocommit { _ in "joined" } }
                async let child = Self.outcome { try await database.autocommit { _ in "joined" } }
                return (own, await child)
            }
            #expect(own == "joined")
            #expect(child.contains("child task"), "\(child)")
        }
    }

    /// What a unit of work returned, or the message of what it threw.
    private static func outcome(_ work: () async throws -> String) async -> String {
        do {
            return try await work()
        } catch let error as PGError {
            return error.message
        } catch {
            return "\(error)"
        }
    }
}
