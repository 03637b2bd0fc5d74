import PurseModels
import Testing

@testable import PurseCore

/// The customer portal's rules (issue 33), without a database: one default configuration per
/// account, the flows Purse serves, what a session's pages may show and change, and that a
/// session's URL opens only its own session, until it is revoked.
@Suite("Customer portal, in memory")
struct BillingPortalDomainTests {
    private func session(
        _ purse: DomainHarness, customer: String, _ extra: [String: JSONValue] = [:]
    ) async throws -> BillingPortalSession {
        let json = JSONObject([("customer", JSONValue.string(customer))] + extra.map { ($0.key, $0.value) })
        let params = try JSONValueDecoder().decode(BillingPortalSessionParameters.self, from: .object(json))
        return try await purse.portal.createSession(params, by: purse.secret, request: purse.request)
    }

    private func visit(_ purse: DomainHarness, _ session: BillingPortalSession) async throws -> BillingPortalPages.Visit {
        let token = try #require(session.url?.split(separator: "/").last.map(String.init))
        return try await purse.portalPages.visit(session.id, token: token)
    }

    @Test func anAccountGetsOneDefaultConfigurationWhateverAsksFirst() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer()
        let first = try await session(purse, customer: customer)
        let listed = try await purse.portal.listConfigurations(
            try JSONValueDecoder().decode(BillingPortalConfigurationListParameters.self, from: [:]), by: purse.secret
        )
        #expect(listed.data.map { $0.id } == [first.configuration])
        #expect(listed.data.first?.isDefault == true && listed.data.first?.features.paymentMethodUpdate.enabled == true)
        #expect(try await session(purse, customer: customer).configuration == first.configuration)
    }

    @Test func onlyThePaymentMethodUpdateFlowIsServedAndItsCompletionIsChecked() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer()
        for type in ["subscription_cancel", "subscription_update", "subscription_update_confirm"] {
            await #expect(throws: PurseError.self) { try await session(purse, customer: customer, ["flow_data": ["type": .string(type)]]) }
        }
        let plain = try await session(purse, customer: customer, ["flow_data": ["type": "payment_method_update"]])
        #expect(plain.flow?.afterCompletion.type == "portal_homepage")
        let redirectWithout: JSONValue = ["type": "payment_method_update", "after_completion": ["type": "redirect"]]
        do {
            _ = try await session(purse, customer: customer, ["flow_data": redirectWithout])
            Issue.record("a redirect without its URL was accepted")
        } catch let error as PurseError {
            #expect(error.param == "flow_data[after_completion][redirect]")
        }
        let longMessage: JSONValue = [
            "type": "payment_method_update",
            "after_completion": [
                "type": "hosted_confirmation", "hosted_confirmation": ["custom_message": .string(String(repeating: "x", count: 501))],
            ],
        ]
        await #expect(throws: PurseError.self) { try await session(purse, customer: customer, ["flow_data": longMessage]) }
        #expect(await purse.eventTypes().filter { $0 == "billing_portal.session.created" }.count == 1)
    }

    @Test func aURLOpensItsOwnSessionOnlyAndNotOnceRevoked() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer()
        let mine = try await session(purse, customer: customer)
        let other = try await session(purse, customer: try await purse.customer())
        let otherToken = try #require(other.url?.split(separator: "/").last.map(String.init))
        await #expect(throws: PurseError.self) { try await purse.portalPages.visit(mine.id, token: otherToken) }
        #expect(try await visit(purse, mine).session.customer == customer)
        let revoked = try await purse.customers.revokeCredentials(customer, by: purse.secret)
        #expect(revoked.billingPortalSessionsRevoked == 1)
        await #expect(throws: PurseError.self) { try await visit(purse, mine) }
        #expect(try await visit(purse, other).session.id == other.id)
    }

    @Test func theDefaultStaysUntilAnotherMethodTakesItsPlace() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer()
        let visa = try await purse.attach("pm_card_visa", to: customer)
        let mastercard = try await purse.attach("pm_card_mastercard", to: customer)
        _ = try await purse.setDefault(visa.id, of: customer)
        let portal = try await session(purse, customer: customer)
        var page = try await visit(purse, portal)
        #expect(Set(page.methods.map { $0.id }) == [visa.id, mastercard.id])
        #expect(!page.canRemove(try #require(page.methods.first { $0.id == visa.id })))
        await #expect(throws: PurseError.self) { try await purse.portalPages.remove(visa.id, in: page, request: purse.request) }

        try await purse.portalPages.setDefault(mastercard.id, in: page, request: purse.request)
        #expect(try await purse.currentCustomer(customer).invoiceSettings.defaultPaymentMethod == mastercard.id)
        page = try await visit(purse, portal)
        try await purse.portalPages.remove(visa.id, in: page, request: purse.request)
        page = try await visit(purse, portal)
        // The last method may go, default or not: nothing else could take its place.
        #expect(page.canRemove(try #require(page.methods.first)))
        try await purse.portalPages.remove(mastercard.id, in: page, request: purse.request)
        #expect(try await purse.currentCustomer(customer).invoiceSettings.defaultPaymentMethod == nil)
    }

    @Test func whatTheSheetSettingsHideThePageDoesNotShowNorChange() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer()
        let expired = try await purse.attach("pm_card_visa", to: customer)
        try await purse.expire(expired.id)
        try await purse.updateDefaultSettings(.filter(hideExpired: true))
        let page = try await visit(purse, try await session(purse, customer: customer))
        #expect(page.methods.isEmpty)
        await #expect(throws: PurseError.self) { try await purse.portalPages.setDefault(expired.id, in: page, request: purse.request) }
        await #expect(throws: PurseError.self) { try await purse.portalPages.remove(expired.id, in: page, request: purse.request) }
    }

    @Test func aFlowSavesTheDefaultOnceThenOpensOnThePaymentMethods() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer()
        let portal = try await session(purse, customer: customer, ["flow_data": ["type": "payment_method_update"]])
        var page = try await visit(purse, portal)
        #expect(page.isFlowPending)

        var declined = SetupIntentConfirmParameters()
        declined.paymentMethodData = try JSONValueDecoder().decode(
            PaymentMethodCreateParameters.self,
            from: ["type": "card", "card": ["number": "4000000000000002", "exp_month": 12, "exp_year": 2040, "cvc": "123"]]
        )
        await #expect(throws: PurseError.self) {
            try await purse.portalPages.add(.card, declined, makeDefault: false, in: page, request: purse.request)
        }
        #expect(try await purse.listed(customer).ids.isEmpty)

        var approved = SetupIntentConfirmParameters()
        approved.paymentMethodData = try JSONValueDecoder().decode(
            PaymentMethodCreateParameters.self,
            from: ["type": "card", "card": ["number": "4242424242424242", "exp_month": 12, "exp_year": 2040, "cvc": "123"]]
        )
        let addition = try await purse.portalPages.add(.card, approved, makeDefault: false, in: page, request: purse.request)
        guard case .saved(let method) = addition else { throw HarnessError.notLive }
        #expect(try await purse.currentCustomer(customer).invoiceSettings.defaultPaymentMethod == method)
        page = try await visit(purse, portal)
        #expect(!page.isFlowPending)
    }

    @Test func aConfigurationWithoutPaymentMethodUpdateShowsButChangesNothing() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer()
        let card = try await purse.attach(to: customer)
        let readOnly = try await purse.portal.createConfiguration(
            try JSONValueDecoder().decode(
                BillingPortalConfigurationParameters.self, from: ["features": ["payment_method_update": ["enabled": false]]]
            ),
            by: purse.secret, request: purse.request
        )
        let page = try await visit(purse, try await session(purse, customer: customer, ["configuration": .string(readOnly.id)]))
        #expect(!page.canUpdate && page.methods.map { $0.id } == [card.id])
        await #expect(throws: PurseError.self) { try await purse.portalPages.remove(card.id, in: page, request: purse.request) }
        await #expect(throws: PurseError.self) { try await purse.portalPages.setDefault(card.id, in: page, request: purse.request) }
        #expect(try await purse.listed(customer).ids == [card.id])
    }
}
