import Postgres
import PurseCore
import Testing

/// The database's refusals in domain terms: races answered as Stripe answers them, never a 500.
@Suite("Database errors as domain errors")
struct DatabaseErrorsTests {
    @Test(arguments: [SQLState.deadlockDetected, .serializationFailure, .lockNotAvailable])
    func conflictsAreRetryableLockTimeouts(state: SQLState) throws {
        let refusal = try #require(DatabaseErrors.translated(PGError(.server, message: "x", sqlState: state)))
        #expect(refusal.category == .conflict)
        #expect(refusal.code == "lock_timeout")
    }

    @Test func aUniqueViolationIsAnObjectThatAlreadyExists() throws {
        let refusal = try #require(
            DatabaseErrors.translated(PGError(.server, message: "x", sqlState: .uniqueViolation, constraint: "customers_pkey"))
        )
        #expect(refusal.category == .invalidRequest)
        #expect(refusal.code == "resource_already_exists")
    }

    @Test func aForeignKeyViolationIsAnObjectThatVanished() throws {
        let refusal = try #require(DatabaseErrors.translated(PGError(.server, message: "x", sqlState: .foreignKeyViolation)))
        #expect(refusal.code == "resource_missing")
    }

    @Test func whatIsNotARefusalStaysTheServersToAnswer() {
        #expect(DatabaseErrors.translated(PGError(.connectionFailed, message: "lost")) == nil)
        #expect(DatabaseErrors.translated(PGError(.poolTimeout, message: "busy")) == nil)
        #expect(DatabaseErrors.translated(PGError(.server, message: "x", sqlState: .undefinedTable)) == nil)
        #expect(DatabaseErrors.translated(PGError(.server, message: "x", sqlState: .inFailedTransaction)) == nil)
    }

    @Test func noMessageOfTheServerReachesTheClient() throws {
        let refusal = try #require(
            DatabaseErrors.translated(
                PGError(.server, message: "duplicate key", sqlState: .uniqueViolation, detail: "Key (email)=(secret@example.com)")
            )
        )
        #expect(!refusal.message.contains("secret") && !refusal.message.contains("duplicate key"))
    }
}
