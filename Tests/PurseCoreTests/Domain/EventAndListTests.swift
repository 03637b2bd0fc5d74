import PurseModels
import Testing

@testable import PurseCore

/// The event log as changes write it, and lists: newest first, keyset cursors both ways.
@Suite("Events and lists, in memory")
struct EventAndListTests {
    @Test func aCustomerUpdateRecordsThePreviousAttributesOfWhatChanged() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer(email: "old@example.com")
        var params = CustomerUpdateParameters()
        params.email = .set("new@example.com")
        params.name = .set("Jenny Rosen")
        _ = try await purse.customers.update(customer, params, by: purse.secret, request: purse.request)

        let page = try await purse.events.list(.init(), account: purse.account)
        #expect(page.data.map(\.type) == ["customer.updated", "customer.created"])
        let event = try await purse.events.retrieve(page.data[0].id, account: purse.account)
        let previous = try #require(event.data.previousAttributes)
        #expect(previous["email"] == "old@example.com")
        #expect(previous["name"] == .null)
        #expect(previous["phone"] == nil)  // unchanged fields are not listed
        #expect(event.data.object["email"] == "new@example.com")
        #expect(event.request?.id == purse.request.id)
    }

    @Test func anUpdateThatChangesNothingRecordsNothing() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer(email: "same@example.com")
        var params = CustomerUpdateParameters()
        params.email = .set("same@example.com")
        let types = try await purse.eventTypes {
            _ = try await purse.customers.update(customer, params, by: purse.secret, request: purse.request)
        }
        #expect(types.isEmpty)
    }

    @Test func eventsFilterByExactTypePrefixAndList() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer()
        _ = try await purse.attach(to: customer)
        var params = SetupIntentCreateParameters()
        params.customer = customer
        _ = try await purse.setupIntents.create(params, by: purse.secret, request: purse.request)

        func types(_ params: EventService.ListParams) async throws -> [String] {
            try await purse.events.list(params, account: purse.account).data.map(\.type)
        }
        #expect(try await types(.init(type: "customer.created")) == ["customer.created"])
        #expect(try await types(.init(type: "setup_intent.*")) == ["setup_intent.created"])
        #expect(try await types(.init(types: ["payment_method.attached", "customer.created"])) == ["payment_method.attached", "customer.created"])
        let both = await #expect(throws: PurseError.self) { _ = try await types(.init(type: "a", types: ["b"])) }
        #expect(both?.param == "types")
        // Another account sees none of them.
        #expect(try await purse.events.list(.init(), account: "acct_other").data.isEmpty)
    }

    @Test func aSetupIntentEventShowsTheClientSecretDerivedAgain() async throws {
        let purse = try await DomainHarness.make()
        let intent = try await purse.setupIntents.create(SetupIntentCreateParameters(), by: purse.secret, request: purse.request)
        let stored = try #require(await purse.database.recordedEvents().first)
        let secret = try #require(intent.clientSecret)
        #expect(!stored.data.contains(secret))
        let event = try await purse.events.retrieve(stored.id, account: purse.account)
        #expect(event.data.object["client_secret"]?.stringValue == intent.clientSecret)
    }

    @Test func customersListNewestFirstWithCursorsBothWays() async throws {
        let purse = try await DomainHarness.make()
        var ids: [String] = []
        for _ in 0..<5 { ids.append(try await purse.customer()) }
        let newest = Array(ids.reversed())

        let first = try await purse.customers.list(.init(limit: 2), by: purse.secret)
        #expect(first.data.map(\.id) == Array(newest[0..<2]))
        #expect(first.hasMore)
        let second = try await purse.customers.list(.init(limit: 2, startingAfter: newest[1]), by: purse.secret)
        #expect(second.data.map(\.id) == Array(newest[2..<4]))
        #expect(second.hasMore)
        let last = try await purse.customers.list(.init(limit: 2, startingAfter: newest[3]), by: purse.secret)
        #expect(last.data.map(\.id) == [newest[4]])
        #expect(!last.hasMore)
        let back = try await purse.customers.list(.init(limit: 2, endingBefore: newest[3]), by: purse.secret)
        #expect(back.data.map(\.id) == Array(newest[1..<3]))
        #expect(back.hasMore)
        let top = try await purse.customers.list(.init(limit: 2, endingBefore: newest[1]), by: purse.secret)
        #expect(top.data.map(\.id) == [newest[0]])
        #expect(!top.hasMore)
    }

    @Test func anUnknownCursorIsResourceMissingNamingTheParameter() async throws {
        let purse = try await DomainHarness.make()
        _ = try await purse.customer()
        let after = await #expect(throws: PurseError.self) {
            _ = try await purse.customers.list(.init(startingAfter: "cus_missing"), by: purse.secret)
        }
        #expect(after?.code == "resource_missing")
        #expect(after?.param == "starting_after")
        let before = await #expect(throws: PurseError.self) {
            _ = try await purse.customers.list(.init(endingBefore: "cus_missing"), by: purse.secret)
        }
        #expect(before?.param == "ending_before")
    }

    @Test func customersFilterByEmail() async throws {
        let purse = try await DomainHarness.make()
        let jenny = try await purse.customer(email: "jenny@example.com")
        _ = try await purse.customer(email: "other@example.com")
        let page = try await purse.customers.list(.init(email: "jenny@example.com"), by: purse.secret)
        #expect(page.data.map(\.id) == [jenny])
    }

    @Test func paymentMethodPagesFollowTheCursor() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer()
        var ids: [String] = []
        for _ in 0..<5 { ids.append(try await purse.attach(to: customer).id) }
        let newest = Array(ids.reversed())
        let first = try await purse.listed(customer, limit: 3)
        #expect(first.ids == Array(newest[0..<3]))
        #expect(first.hasMore)
        let rest = try await purse.listed(customer, limit: 3, after: newest[2])
        #expect(rest.ids == Array(newest[3..<5]))
        #expect(!rest.hasMore)
    }

    @Test func aCursorTheClientsFilterHidesIsUnknownToTheClient() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer()
        let credit = try await purse.attach("pm_card_visa", to: customer)
        _ = try await purse.attach("pm_card_visa_debit", to: customer)
        try await purse.updateDefaultSettings(.filter(funding: [.debit]))
        let error = await #expect(throws: PurseError.self) {
            _ = try await purse.listed(customer, by: purse.ephemeralKey(customer), after: credit.id)
        }
        #expect(error?.code == "resource_missing")
        #expect(error?.param == "starting_after")
    }

    @Test func methodsOfAnUnknownOrHiddenCustomerAreRefused() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer()
        let missing = await #expect(throws: PurseError.self) { _ = try await purse.listed("cus_missing") }
        #expect(missing?.param == "customer")
        let hidden = await #expect(throws: PurseError.self) {
            _ = try await purse.listed(customer, by: purse.ephemeralKey(try await purse.customer()))
        }
        #expect(hidden?.code == "resource_missing")
    }

    @Test func setupIntentsListByCustomer() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer()
        var params = SetupIntentCreateParameters()
        params.customer = customer
        let mine = try await purse.setupIntents.create(params, by: purse.secret, request: purse.request)
        _ = try await purse.setupIntents.create(SetupIntentCreateParameters(), by: purse.secret, request: purse.request)
        let page = try await purse.setupIntents.list(.init(customer: customer), by: purse.secret)
        #expect(page.data.map(\.id) == [mine.id])
        #expect(page.data.first?.clientSecret == mine.clientSecret)
    }
}
