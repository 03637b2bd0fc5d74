import Postgres
import PurseCore
import Testing

@testable import PursePostgres

/// The database's errors in domain terms: races answered as Stripe answers them, never a 500,
/// and an unreachable database as one to retry.
@Suite("Database errors as domain errors")
struct DatabaseErrorTranslationTests {
    @Test(arguments: [SQLState.deadlockDetected, .serializationFailure, .lockNotAvailable])
    func conflictsAreRetryableLockTimeouts(state: SQLState) throws {
        let refusal = try #require(Self.refusal(PGError(.server, message: "x", sqlState: state)))
        #expect(refusal.category == .conflict)
        #expect(refusal.code == "lock_timeout")
    }

    @Test func aUniqueViolationIsAnObjectThatAlreadyExists() throws {
        let refusal = try #require(
            Self.refusal(PGError(.server, message: "x", sqlState: .uniqueViolation, constraint: "customers_pkey"))
        )
        #expect(refusal.category == .invalidRequest)
        #expect(refusal.code == "resource_already_exists")
    }

    @Test func aForeignKeyViolationIsAnObjectThatVanished() throws {
        let refusal = try #require(Self.refusal(PGError(.server, message: "x", sqlState: .foreignKeyViolation)))
        #expect(refusal.code == "resource_missing")
    }

    @Test func anUnreachableDatabaseIsUnavailable() {
        for error in [
            PGError(.connectionFailed, message: "lost"), PGError(.poolTimeout, message: "busy"),
            PGError(.server, message: "x", sqlState: .adminShutdown),
        ] {
            guard case .unavailable(let reason) = error.databaseError else {
                Issue.record("\(error) is not unavailable")
                continue
            }
            #expect(reason == error.description, "the log says what the driver said")
        }
    }

    @Test func whatIsNotTheDomainsStaysTheServersToAnswer() {
        #expect(PGError(.server, message: "x", sqlState: .undefinedTable).databaseError == nil)
        #expect(PGError(.server, message: "x", sqlState: .inFailedTransaction).databaseError == nil)
        #expect(PGError(.decoding, message: "not an integer").databaseError == nil)
    }

    @Test func noMessageOfTheServerReachesTheClient() throws {
        let refusal = try #require(
            Self.refusal(
                PGError(.server, message: "duplicate key", sqlState: .uniqueViolation, detail: "Key (email)=(secret@example.com)")
            )
        )
        #expect(!refusal.message.contains("secret") && !refusal.message.contains("duplicate key"))
    }

    /// The domain's answer `error` is translated to, if it is a refusal.
    private static func refusal(_ error: PGError) -> PurseError? {
        guard case .refused(let refusal, _) = error.databaseError else { return nil }
        return refusal
    }
}
