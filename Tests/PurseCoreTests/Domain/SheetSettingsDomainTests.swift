import PurseModels
import Testing

@testable import PurseCore

/// Customer sheet settings (spec §4) through the services: which settings are in force, the
/// default's protection, what their saved-method filter hides from a client, and what they
/// require of a method a client saves.
@Suite("Sheet settings, in memory")
struct SheetSettingsDomainTests {
    private func named(_ purse: DomainHarness, _ name: String) async throws -> CustomerSheetSettings {
        var params = SheetSettingsParameters()
        params.name = .set(name)
        return try await purse.sheetSettings.create(params, by: purse.secret)
    }

    @Test func theDefaultCannotBeDeleted() async throws {
        let purse = try await DomainHarness.make()
        let error = await #expect(throws: PurseError.self) { _ = try await purse.sheetSettings.delete("default", by: purse.secret) }
        #expect(error?.param == "id")
        let settings = try await purse.sheetSettings.retrieve("default", by: purse.secret)
        #expect(settings.isDefault)
        let byID = await #expect(throws: PurseError.self) { _ = try await purse.sheetSettings.delete(settings.id, by: purse.secret) }
        #expect(byID?.param == "id")
    }

    @Test func theSettingsInForceAreTheNamedOnesElseTheCredentialsElseTheDefault() async throws {
        let purse = try await DomainHarness.make()
        let keys = try await named(purse, "keys")
        let intents = try await named(purse, "intents")
        let defaults = try await purse.sheetSettings.retrieve("default", by: purse.secret)
        let bound = purse.ephemeralKey("cus_any", settings: keys.id)
        #expect(try await purse.sheetSettings.inForce(for: bound, named: intents.id).settings.id == intents.id)
        #expect(try await purse.sheetSettings.inForce(for: bound).settings.id == keys.id)
        #expect(try await purse.sheetSettings.inForce(for: purse.ephemeralKey("cus_any")).settings.id == defaults.id)
    }

    @Test func deletedSettingsLeaveTheIntentsThatNamedThemOnTheDefault() async throws {
        let purse = try await DomainHarness.make()
        let settings = try await named(purse, "checkout")
        var params = SetupIntentCreateParameters()
        params.customerSheetSettings = settings.id
        let intent = try await purse.setupIntents.create(params, by: purse.secret, request: purse.request)
        #expect(intent.customerSheetSettings == settings.id)
        let deleted = try await purse.sheetSettings.delete(settings.id, by: purse.secret)
        #expect(deleted.id == settings.id)
        #expect(try await purse.setupIntents.retrieve(intent.id, clientSecret: nil, by: purse.secret).customerSheetSettings == nil)
        let gone = await #expect(throws: PurseError.self) { _ = try await purse.sheetSettings.retrieve(settings.id, by: purse.secret) }
        #expect(gone?.code == "resource_missing")
    }

    @Test func anIntentNamingUnknownSettingsIsRefused() async throws {
        let purse = try await DomainHarness.make()
        var params = SetupIntentCreateParameters()
        params.customerSheetSettings = "css_missing"
        let error = await #expect(throws: PurseError.self) {
            _ = try await purse.setupIntents.create(params, by: purse.secret, request: purse.request)
        }
        #expect(error?.param == "customer_sheet_settings")
        #expect(await purse.database.snapshot().setupIntents.isEmpty)
    }

    @Test func theFundingFilterHidesOtherCardsFromAClientOnly() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer()
        let credit = try await purse.attach("pm_card_visa", to: customer)
        let debit = try await purse.attach("pm_card_visa_debit", to: customer)
        try await purse.updateDefaultSettings(.filter(funding: [.debit]))
        #expect(try await purse.listed(customer, by: purse.ephemeralKey(customer)).ids == [debit.id])
        #expect(try await purse.listed(customer).ids == [debit.id, credit.id])
    }

    @Test func theBrandFilterLeavesOtherTypesAlone() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer()
        _ = try await purse.attach("pm_card_visa", to: customer)
        let mastercard = try await purse.attach("pm_card_mastercard", to: customer)
        let sepa = try await purse.attach("pm_sepaDebit_success", to: customer)
        try await purse.updateDefaultSettings(.filter(brands: [.mastercard]))
        #expect(try await purse.listed(customer, by: purse.ephemeralKey(customer)).ids == [sepa.id, mastercard.id])
    }

    @Test func hideExpiredHidesExpiredCards() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer()
        let expired = try await purse.attach("pm_card_visa", to: customer)
        let valid = try await purse.attach("pm_card_mastercard", to: customer)
        try await purse.expire(expired.id)
        let key = purse.ephemeralKey(customer)
        #expect(try await purse.listed(customer, by: key).ids == [valid.id, expired.id])
        try await purse.updateDefaultSettings(.filter(hideExpired: true))
        #expect(try await purse.listed(customer, by: key).ids == [valid.id])
        #expect(try await purse.listed(customer).ids == [valid.id, expired.id])
    }

    @Test func theAllowRedisplayFilterShowsOnlyThoseValues() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer()
        let always = try await purse.attach(try await purse.card(redisplay: .always).id, to: customer)
        _ = try await purse.attach(try await purse.card(redisplay: .unspecified).id, to: customer)
        try await purse.updateDefaultSettings(.filter(allowRedisplay: [.always]))
        #expect(try await purse.listed(customer, by: purse.ephemeralKey(customer)).ids == [always.id])
    }

    @Test func theCountryFilterAppliesToEveryType() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer()
        let jcb = try await purse.attach("pm_card_jcb", to: customer)
        _ = try await purse.attach("pm_card_visa", to: customer)
        _ = try await purse.attach("pm_sepaDebit_success", to: customer)
        try await purse.updateDefaultSettings(.filter(countries: ["JP"]))
        #expect(try await purse.listed(customer, by: purse.ephemeralKey(customer)).ids == [jcb.id])
    }

    @Test func theSheetShowsRedisplayableMethodsAndTheDevicesDefaultThroughTheFilter() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer()
        let always = try await purse.attach(try await purse.card(redisplay: .always).id, to: customer)
        let limited = try await purse.attach(try await purse.card("5555555555554444", redisplay: .limited).id, to: customer)
        _ = try await purse.attach(try await purse.card(redisplay: .unspecified).id, to: customer)
        let debit = try await purse.attach(try await purse.card("4000056655665556", redisplay: .always).id, to: customer)
        _ = try await purse.setDefault(limited.id, of: customer)
        let settings = try await purse.updateDefaultSettings(.filter(funding: [.credit]))

        let sheet = try await purse.paymentMethods.sheetMethods(
            customer: customer, allowRedisplay: ["always"], alsoShowing: limited.id, settings: settings, by: purse.ephemeralKey(customer)
        )
        #expect(sheet.methods.map(\.id) == [limited.id, always.id])
        #expect(!sheet.methods.map(\.id).contains(debit.id))
        #expect(sheet.defaultMethod == limited.id)
    }

    @Test func theSheetOfAnUnknownCustomerIsRefused() async throws {
        let purse = try await DomainHarness.make()
        let settings = try await purse.sheetSettings.retrieve("default", by: purse.secret)
        let error = await #expect(throws: PurseError.self) {
            _ = try await purse.paymentMethods.sheetMethods(
                customer: "cus_missing", allowRedisplay: ["always"], settings: settings, by: purse.secret
            )
        }
        #expect(error?.param == "customer")
    }

    @Test func aClientMustGiveTheBillingDetailsTheSettingsRequire() async throws {
        let purse = try await DomainHarness.make()
        var params = SheetSettingsParameters()
        params.billingDetailsCollection = .set(.init(name: .set(.always)))
        try await purse.updateDefaultSettings(params)
        let key = purse.ephemeralKey(try await purse.customer())
        let error = await #expect(throws: PurseError.self) { _ = try await purse.card(by: key) }
        #expect(error?.param == "billing_details[name]")
        let named = try await purse.card(by: key, billing: BillingDetailsParameters(name: "Jenny Rosen"))
        #expect(named.billingDetails.name == "Jenny Rosen")
        // The secret key is never restricted.
        #expect(try await purse.card().billingDetails.name == nil)
    }

    @Test func aClientCannotSaveATypeTheSettingsDoNotAllow() async throws {
        let purse = try await DomainHarness.make()
        var params = SheetSettingsParameters()
        params.paymentMethodTypes = .set([.card])
        try await purse.updateDefaultSettings(params)
        var sepa = PaymentMethodCreateParameters(type: .sepaDebit)
        sepa.sepaDebit = SepaDebitParameters(iban: "DE89370400440532013000")
        sepa.billingDetails = BillingDetailsParameters(email: "jenny@example.com", name: "Jenny Rosen")
        let key = purse.ephemeralKey(try await purse.customer())
        let error = await #expect(throws: PurseError.self) { _ = try await purse.paymentMethods.create(sepa, by: key) }
        #expect(error?.param == "type")
        #expect(try await purse.paymentMethods.create(sepa, by: purse.secret).type == "sepa_debit")
    }

    @Test func settingsListNewestFirst() async throws {
        let purse = try await DomainHarness.make()
        let first = try await named(purse, "first")
        let second = try await named(purse, "second")
        let page = try await purse.sheetSettings.list(.init(limit: 2), by: purse.secret)
        #expect(page.data.map(\.id) == [second.id, first.id])
        #expect(page.hasMore)
    }
}
