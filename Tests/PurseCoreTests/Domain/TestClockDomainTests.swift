import PurseModels
import Testing

@testable import PurseCore

/// Test clocks' rules (issue 34), without a database: a clock moves only forward and at most two
/// years, one advance at a time; customers made on it take its time and stay on it; deleting it
/// deletes them.
@Suite("Test clocks, in memory")
struct TestClockDomainTests {
    private static let start = 1_700_000_000

    private func clock(_ purse: DomainHarness, at time: Int = start, name: String? = nil) async throws -> TestClock {
        try await purse.testClocks.create(TestClockCreateParameters(frozenTime: time, name: name), by: purse.secret, request: purse.request)
    }

    private func advance(_ purse: DomainHarness, _ id: String, to time: Int) async throws -> TestClock {
        try await purse.testClocks.advance(id, TestClockAdvanceParameters(frozenTime: time), by: purse.secret, request: purse.request)
    }

    @Test func aNewClockIsReadyAtItsTimeAndIsDeletedThirtyDaysLater() async throws {
        let purse = try await DomainHarness.make()
        let made = try await clock(purse, name: "checkout")
        #expect(made.status == .ready && made.statusDetails.advancing == nil)
        #expect(made.frozenTime == Self.start && made.name == "checkout")
        #expect(made.deletesAfter - made.created == 30 * 86_400)
        #expect(try await purse.testClocks.retrieve(made.id, by: purse.secret) == made)
        #expect(await purse.eventTypes().contains("test_helpers.test_clock.created"))
        await #expect(throws: PurseError.self) { try await clock(purse, at: -1) }
        await #expect(throws: PurseError.self) { try await clock(purse, name: String(repeating: "x", count: 301)) }
    }

    @Test func anAdvanceIsAdvancingThenReadyAtItsTarget() async throws {
        let purse = try await DomainHarness.make()
        let made = try await clock(purse)
        let types = try await purse.eventTypes {
            let advancing = try await advance(purse, made.id, to: Self.start + 86_400)
            #expect(advancing.status == .advancing && advancing.frozenTime == Self.start)
            #expect(advancing.statusDetails.advancing?.targetFrozenTime == Self.start + 86_400)
            do {
                _ = try await advance(purse, made.id, to: Self.start + 2 * 86_400)
                Issue.record("a second advance started while the first ran")
            } catch let error as PurseError {
                #expect(error.category == .invalidRequest && error.message.contains("is advancing"))
            }
            #expect(try await purse.testClocks.finishAdvances() == 1)
            #expect(try await purse.testClocks.finishAdvances() == 0, "an advance finishes once")
        }
        #expect(types == ["test_helpers.test_clock.advancing", "test_helpers.test_clock.ready"])
        let ready = try await purse.testClocks.retrieve(made.id, by: purse.secret)
        #expect(ready.status == .ready && ready.frozenTime == Self.start + 86_400 && ready.statusDetails.advancing == nil)
    }

    @Test func aClockMovesOnlyForwardAndAtMostTwoYears() async throws {
        let purse = try await DomainHarness.make()
        let made = try await clock(purse)
        for time in [Self.start, Self.start - 1, Self.start + 2 * 365 * 86_400 + 1] {
            do {
                _ = try await advance(purse, made.id, to: time)
                Issue.record("advanced to \(time)")
            } catch let error as PurseError {
                #expect(error.param == "frozen_time")
            }
        }
        #expect(try await purse.testClocks.retrieve(made.id, by: purse.secret) == made, "a refused advance changes nothing")
        // Two years past the time it was created at, over several advances.
        _ = try await advance(purse, made.id, to: Self.start + 365 * 86_400)
        _ = try await purse.testClocks.finishAdvances()
        _ = try await advance(purse, made.id, to: Self.start + 2 * 365 * 86_400)
        _ = try await purse.testClocks.finishAdvances()
        await #expect(throws: PurseError.self) { try await advance(purse, made.id, to: Self.start + 2 * 365 * 86_400 + 1) }
    }

    @Test func customersOnAClockTakeItsTimeAreListedApartAndAreAtMostThree() async throws {
        let purse = try await DomainHarness.make()
        let made = try await clock(purse)
        let plain = try await purse.customer()
        var clocked: [String] = []
        for _ in 0..<3 { clocked.append(try await purse.customer(testClock: made.id)) }
        let first = try await purse.currentCustomer(clocked[0])
        #expect(first.testClock == made.id && first.created == Self.start)
        do {
            _ = try await purse.customer(testClock: made.id)
            Issue.record("a fourth customer joined the clock")
        } catch let error as PurseError {
            #expect(error.param == "test_clock")
        }
        do {
            _ = try await purse.customer(testClock: "clock_missing")
            Issue.record("a customer joined a clock that does not exist")
        } catch let error as PurseError {
            #expect(error.code == "resource_missing" && error.param == "test_clock")
        }
        var listAll = CustomerListParameters()
        #expect(try await purse.customers.list(listAll, by: purse.secret).data.map(\.id) == [plain])
        listAll.testClock = made.id
        #expect(Set(try await purse.customers.list(listAll, by: purse.secret).data.map(\.id)) == Set(clocked))
    }

    /// The stored key (or session key) `secret` opens, if it still does.
    private func credential(_ purse: DomainHarness, secret: String) async throws -> StoredCustomerCredential? {
        try await purse.database.autocommit { try await $0.customerCredentials.credential(keyHash: SecretHash.sha256(secret)) }
    }

    @Test func deletingAClockDeletesItsCustomersAndTheirKeys() async throws {
        let purse = try await DomainHarness.make()
        let made = try await clock(purse)
        let customer = try await purse.customer(testClock: made.id)
        _ = try await purse.attach(to: customer)
        let key = try await purse.ephemeralKeys.create(.init(customer: customer), by: purse.secret)
        #expect(try await credential(purse, secret: try #require(key.secret)) != nil)
        let other = try await purse.customer()
        let types = try await purse.eventTypes {
            let deleted = try await purse.testClocks.delete(made.id, by: purse.secret, request: purse.request)
            #expect(deleted.deleted && deleted.object == "test_helpers.test_clock")
        }
        #expect(types == ["payment_method.detached", "customer.deleted", "test_helpers.test_clock.deleted"])
        guard case .deleted = try await purse.customers.retrieve(customer, by: purse.secret) else {
            Issue.record("the clock's customer is still live")
            return
        }
        #expect(try await credential(purse, secret: try #require(key.secret)) == nil, "the key no longer opens anything")
        #expect(try await purse.currentCustomer(other).id == other, "a customer on no clock stays")
        await #expect(throws: PurseError.self) { try await purse.testClocks.retrieve(made.id, by: purse.secret) }
        await #expect(throws: PurseError.self) { try await purse.testClocks.delete(made.id, by: purse.secret, request: purse.request) }
    }

    @Test func keysAndIntentsOfAClockedCustomerAreTimedByItsClock() async throws {
        let purse = try await DomainHarness.make()
        let made = try await clock(purse)
        let customer = try await purse.customer(testClock: made.id)
        let key = try await purse.ephemeralKeys.create(.init(customer: customer), by: purse.secret)
        #expect((key.created, key.expires) == (Self.start, Self.start + 3600))
        var params = SetupIntentCreateParameters()
        params.customer = customer
        #expect(try await purse.setupIntents.create(params, by: purse.secret, request: purse.request).created == Self.start)

        _ = try await advance(purse, made.id, to: Self.start + 86_400)
        _ = try await purse.testClocks.finishAdvances()
        #expect(try await purse.ephemeralKeys.create(.init(customer: customer), by: purse.secret).created == Self.start + 86_400)
        // A customer on no clock is timed by the wall clock.
        let plain = try await purse.customer()
        #expect(try await purse.ephemeralKeys.create(.init(customer: plain), by: purse.secret).created > Self.start + 365 * 86_400)
    }

    /// Housekeeping deletes keys a day past their expiry by the customer's own time: a key of a
    /// customer on a clock set years ago is kept until the clock passes it.
    @Test func housekeepingKeepsTheKeysOfAClockedCustomerUntilItsClockPassesThem() async throws {
        let purse = try await DomainHarness.make()
        let made = try await clock(purse)
        let customer = try await purse.customer(testClock: made.id)
        let secret = try #require(try await purse.ephemeralKeys.create(.init(customer: customer), by: purse.secret).secret)
        #expect(try await purse.ephemeralKeys.sweepExpired() == 0)
        #expect(try await credential(purse, secret: secret) != nil)
        // An hour for the key, and the day housekeeping waits after it.
        _ = try await advance(purse, made.id, to: Self.start + 3600 + 86_400 + 1)
        _ = try await purse.testClocks.finishAdvances()
        #expect(try await purse.ephemeralKeys.sweepExpired() == 1)
        #expect(try await credential(purse, secret: secret) == nil)
    }

    private func confirm(_ purse: DomainHarness, _ id: String, method: String) async throws -> SetupIntent {
        var params = SetupIntentConfirmParameters()
        params.paymentMethod = method
        params.mandateData = method.hasPrefix("pm_usBankAccount") ? .online : nil
        params.returnURL = "https://app.example/done"
        return try await purse.setupIntents.confirm(id, params, by: purse.secret, request: purse.request)
    }

    private func status(_ purse: DomainHarness, _ id: String) async throws -> SetupIntentStatus {
        try await purse.setupIntents.retrieve(id, clientSecret: nil, by: purse.secret).status
    }

    /// Waiting for a payment method or an authentication ends after a day of the customer's time:
    /// a clocked intent outlives the wall clock's day, and ends with the advance that passes its own.
    @Test func setupIntentsOfAClockedCustomerAreAbandonedByItsClock() async throws {
        let purse = try await DomainHarness.make()
        let made = try await clock(purse)
        let clocked = try await purse.customer(testClock: made.id)
        let waiting = try await purse.setupIntent(customer: clocked)
        let authenticating = try await confirm(purse, try await purse.setupIntent(customer: clocked).id, method: "pm_card_authenticationRequired")
        #expect(authenticating.status == .requiresAction)
        let plain = try await purse.setupIntent(customer: try await purse.customer())

        await purse.database.advanceClock(by: 86_401)
        #expect(try await purse.setupIntents.sweepAbandoned() == 1)
        #expect(try await status(purse, plain.id) == .canceled)
        #expect(try await status(purse, waiting.id) == .requiresPaymentMethod)

        _ = try await advance(purse, made.id, to: Self.start + 86_400)
        _ = try await purse.testClocks.finishAdvances()
        #expect(try await status(purse, waiting.id) == .requiresPaymentMethod, "a day exactly is not past it")

        _ = try await advance(purse, made.id, to: Self.start + 86_401)
        let types = try await purse.eventTypes {
            let finished = try await purse.testClocks.finishAdvances()
            #expect(finished == 1)
        }
        #expect(types == ["setup_intent.canceled", "setup_intent.canceled", "test_helpers.test_clock.ready"])
        for id in [waiting.id, authenticating.id] {
            let canceled = try await purse.setupIntents.retrieve(id, clientSecret: nil, by: purse.secret)
            #expect(canceled.status == .canceled && canceled.cancellationReason == "abandoned")
        }
    }

    /// Microdeposits are sent at the clock's time (and a bank debit's mandate accepted then), and
    /// the ten days to verify them run on it.
    @Test func unverifiedMicrodepositsOfAClockedCustomerFailByItsClock() async throws {
        let purse = try await DomainHarness.make()
        let made = try await clock(purse)
        let customer = try await purse.customer(testClock: made.id)
        let options = PaymentMethodOptionsParameters(usBankAccount: .init(verificationMethod: .microdeposits))
        let waiting = try await purse.setupIntent(customer: customer, types: [.usBankAccount], options: options)
        _ = try await confirm(purse, waiting.id, method: "pm_usBankAccount_success")
        let stored = try #require(await purse.database.snapshot().setupIntents[waiting.id]?.stored)
        #expect(stored.microdeposits?.sentAt == Self.start)
        #expect(stored.mandate?["customer_acceptance"]?["accepted_at"] == .int(Self.start))
        #expect(try await purse.setupIntents.sweepAbandoned() == 0)

        _ = try await advance(purse, made.id, to: Self.start + PendingMicrodeposits.verificationDays * 86_400 + 1)
        let types = try await purse.eventTypes { _ = try await purse.testClocks.finishAdvances() }
        #expect(types == ["setup_intent.setup_failed", "test_helpers.test_clock.ready"])
        let failed = try await purse.setupIntents.retrieve(waiting.id, clientSecret: nil, by: purse.secret)
        #expect(failed.lastSetupError?.code == "payment_method_microdeposit_verification_timeout")
    }

    /// A card takes its customer's clock once attached: a new expiry is judged at the clock's time.
    @Test func anAttachedCardsNewExpiryIsJudgedAtItsCustomersClock() async throws {
        let purse = try await DomainHarness.make()
        let made = try await clock(purse)  // November 2023
        var params = PaymentMethodUpdateParameters()
        params.card = .init(expMonth: 12, expYear: 2024)
        let clocked = try await purse.attach(to: try await purse.customer(testClock: made.id))
        let updated = try await purse.paymentMethods.update(clocked.id, params, by: purse.secret, request: purse.request)
        #expect(updated.card?.expYear == 2024)

        let plain = try await purse.attach(to: try await purse.customer())
        let error = await #expect(throws: PurseError.self) {
            _ = try await purse.paymentMethods.update(plain.id, params, by: purse.secret, request: purse.request)
        }
        #expect(error?.code == "invalid_expiry_year")
    }

    /// `customer` on a clock's creation puts an existing customer on it for good: what it makes
    /// from then on lives by the clock, the setup intents it left waiting start their waits over at
    /// the clock's time, and its keys, timed by the wall clock, are revoked.
    @Test func anExistingCustomerCanBePutOnANewClockOnce() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer()
        let waiting = try await purse.setupIntent(customer: customer)
        let options = PaymentMethodOptionsParameters(usBankAccount: .init(verificationMethod: .microdeposits))
        let deposits = try await purse.setupIntent(customer: customer, types: [.usBankAccount], options: options)
        _ = try await confirm(purse, deposits.id, method: "pm_usBankAccount_success")
        let secret = try #require(try await purse.ephemeralKeys.create(.init(customer: customer), by: purse.secret).secret)
        let params = TestClockCreateParameters(frozenTime: Self.start, customer: customer)
        var made: TestClock?
        let types = try await purse.eventTypes {
            made = try await purse.testClocks.create(params, by: purse.secret, request: purse.request)
        }
        let clock = try #require(made)
        #expect(types == ["test_helpers.test_clock.created", "customer.updated"])
        #expect(try await purse.currentCustomer(customer).testClock == clock.id)
        #expect(try await credential(purse, secret: secret) == nil, "a key timed by the wall clock is revoked")
        #expect(try await purse.ephemeralKeys.create(.init(customer: customer), by: purse.secret).created == Self.start)
        let pending = await purse.database.snapshot().setupIntents[deposits.id]?.stored.microdeposits
        #expect(pending?.sentAt == Self.start && pending?.arrivalDate == Self.start + 2 * 86_400)
        // The wall clock's day passes; the intents are the clock's.
        await purse.database.advanceClock(by: 86_401)
        #expect(try await purse.setupIntents.sweepAbandoned() == 0)
        _ = try await advance(purse, clock.id, to: Self.start + 86_401)
        _ = try await purse.testClocks.finishAdvances()
        #expect(try await status(purse, waiting.id) == .canceled)
        #expect(try await status(purse, deposits.id) == .requiresAction)

        let clocksBefore = await purse.database.snapshot().testClocks.count
        let onAClock = await #expect(throws: PurseError.self) {
            _ = try await purse.testClocks.create(params, by: purse.secret, request: purse.request)
        }
        #expect(onAClock?.param == "customer" && onAClock?.message.contains("already on the test clock \(clock.id)") == true)
        let unknown = await #expect(throws: PurseError.self) {
            _ = try await purse.testClocks.create(.init(frozenTime: Self.start, customer: "cus_missing"), by: purse.secret, request: purse.request)
        }
        #expect(unknown?.code == "resource_missing" && unknown?.param == "customer")
        #expect(await purse.database.snapshot().testClocks.count == clocksBefore, "a refused creation makes no clock")
    }

    /// An intent written as its customer joined a clock, with no clock time, is the clock's all
    /// the same: the next advance gives it the clock's time, and it ages from there.
    @Test func anIntentWithNoClockTimeIsStampedByTheNextAdvance() async throws {
        let purse = try await DomainHarness.make()
        let made = try await clock(purse)
        let customer = try await purse.customer(testClock: made.id)
        let waiting = try await purse.setupIntent(customer: customer)
        try await purse.database.write { state in state.setupIntents[waiting.id]?.clockUpdatedAt = nil }
        await purse.database.advanceClock(by: 86_401)
        #expect(try await purse.setupIntents.sweepAbandoned() == 0, "not the wall clock's")
        _ = try await advance(purse, made.id, to: Self.start + 86_401)
        _ = try await purse.testClocks.finishAdvances()
        #expect(try await status(purse, waiting.id) == .requiresPaymentMethod, "its day starts at this advance")
        _ = try await advance(purse, made.id, to: Self.start + 2 * 86_401)
        _ = try await purse.testClocks.finishAdvances()
        #expect(try await status(purse, waiting.id) == .canceled)
    }
}
