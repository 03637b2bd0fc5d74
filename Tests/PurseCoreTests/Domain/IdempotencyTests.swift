import PurseModels
import Testing

@testable import PurseCore

/// A request with an idempotency key runs once, in one transaction with its answer: the rules of
/// ``IdempotencyService/perform(_:_:)``, on the in-memory database.
@Suite("Idempotency keys, in memory")
struct IdempotencyDomainTests {
    private func request(
        _ key: String = "key-1", parameters: String = "name=Jenny", path: String = "/v1/customers"
    )
        -> IdempotentRequest
    {
        IdempotentRequest(
            accountID: "acct_inmemory", caller: "account", key: key, method: "POST", path: path, parameters: Array(parameters.utf8)
        )
    }

    private func answer(_ id: String) -> IdempotencyService.Answer {
        IdempotencyService.Answer(status: 200, body: Array("{\"id\":\"\(id)\"}".utf8))
    }

    @Test func aRetryReplaysTheAnswerWithoutRunningAgain() async throws {
        let purse = try await DomainHarness.make()
        let first = try await purse.idempotency.perform(request()) {
            (try await purse.customer(email: "once@example.com"), answer("first"))
        }
        guard case .ran(let customer) = first else { throw HarnessError.notLive }
        let retry = try await purse.idempotency.perform(request()) { () async throws -> (String, answer: IdempotencyService.Answer) in
            Issue.record("A retry ran the request again")
            return ("", answer("second"))
        }
        guard case .replayed(let replayed) = retry else { throw HarnessError.notLive }
        #expect(replayed.status == 200)
        #expect(replayed.body == answer("first").body)
        #expect(try await purse.currentCustomer(customer).email == "once@example.com")
        #expect(await purse.database.snapshot().customers.count == 1)
    }

    @Test func aRequestThatFailsKeepsNothingAndItsRetryRunsAfresh() async throws {
        let purse = try await DomainHarness.make()
        await #expect(throws: PurseError.self) {
            _ = try await purse.idempotency.perform(request()) { () async throws -> (String, answer: IdempotencyService.Answer) in
                _ = try await purse.customer(email: "lost@example.com")
                throw PurseError(.invalidRequest, message: "refused after a write")
            }
        }
        #expect(await purse.database.snapshot().customers.isEmpty)
        #expect(await purse.database.snapshot().idempotencyKeys.isEmpty)
        let retry = try await purse.idempotency.perform(request()) { (try await purse.customer(), answer("again")) }
        guard case .ran = retry else { throw HarnessError.notLive }
        #expect(await purse.database.snapshot().customers.count == 1)
    }

    /// A confirmation's decline is an answer: what the request recorded is kept with it, while a
    /// unit of work inside it that failed leaves nothing, as it would on its own.
    @Test func aFailedUnitInsideIsUndoneAloneAndTheRestIsKeptWithTheAnswer() async throws {
        let purse = try await DomainHarness.make()
        let outcome = try await purse.idempotency.perform(request()) {
            let kept = try await purse.customer(email: "kept@example.com")
            await #expect(throws: PurseError.self) {
                try await purse.database.transaction { _ in
                    _ = try await purse.customer(email: "undone@example.com")
                    throw PurseError(.invalidRequest, message: "the unit fails")
                }
            }
            return (kept, answer("declined"))
        }
        guard case .ran(let kept) = outcome else { throw HarnessError.notLive }
        let emails = await purse.database.snapshot().customers.values.map(\.customer.email)
        #expect(emails == ["kept@example.com"])
        #expect(try await purse.currentCustomer(kept).email == "kept@example.com")
        #expect(await purse.database.snapshot().idempotencyKeys.count == 1)
    }

    @Test func aKeyReusedWithOtherParametersOrAnotherPathIsRefused() async throws {
        let purse = try await DomainHarness.make()
        _ = try await purse.idempotency.perform(request()) { ((), answer("first")) }
        for reuse in [request(parameters: "name=Other"), request(path: "/v1/setup_intents")] {
            await #expect(throws: PurseError.self) {
                _ = try await purse.idempotency.perform(reuse) { () async throws -> ((), answer: IdempotencyService.Answer) in
                    Issue.record("A reused key ran")
                    return ((), answer("second"))
                }
            }
        }
    }

    @Test func anAnswerPastItsRetentionIsReplacedByANewRun() async throws {
        let purse = try await DomainHarness.make()
        _ = try await purse.idempotency.perform(request()) { ((), answer("old")) }
        await purse.database.advanceClock(by: 24 * 3600 + 1)
        let later = try await purse.idempotency.perform(request(parameters: "name=New")) { ((), answer("new")) }
        guard case .ran = later else { throw HarnessError.notLive }
        let replay = try await purse.idempotency.perform(request(parameters: "name=New")) { ((), answer("unused")) }
        guard case .replayed(let replayed) = replay else { throw HarnessError.notLive }
        #expect(replayed.body == answer("new").body)
    }

    @Test func answersAreKeptADayThenPruned() async throws {
        let purse = try await DomainHarness.make()
        _ = try await purse.idempotency.perform(request()) { ((), answer("kept")) }
        #expect(try await purse.idempotency.prune() == 0)
        await purse.database.advanceClock(by: 86_401)
        #expect(try await purse.idempotency.prune() == 1)
    }

    @Test func keysOutsideOneTo255CharactersAreRefused() async throws {
        let purse = try await DomainHarness.make()
        for key in ["", String(repeating: "k", count: 256)] {
            await #expect(throws: PurseError.self) {
                _ = try await purse.idempotency.perform(request(key)) { ((), answer("none")) }
            }
        }
    }
}
