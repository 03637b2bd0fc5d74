import PurseModels
import Testing

@testable import PurseCore

/// The domain's rules on their own, without a database or a server: the sheet settings' rules
/// (spec §4), what a mobile sheet is offered, co-badged cards, return URLs, text, the test
/// processor and the setup intent's states. They run in milliseconds.
@Suite("Sheet rules")
struct SheetRuleTests {
    private static func settings(
        types: [String] = ["card", "us_bank_account", "sepa_debit"], name: String = "automatic", email: String = "automatic",
        phone: String = "automatic", address: String = "automatic", attach: Bool = false, defaults: BillingDetails = BillingDetails()
    ) -> CustomerSheetSettings {
        var settings = CustomerSheetSettings.initial(id: "css_1", name: nil, isDefault: true, created: 0)
        settings.paymentMethodTypes = types
        settings.billingDetailsCollection = .init(name: name, email: email, phone: phone, address: address, attachDefaultsToPaymentMethod: attach)
        settings.defaultBillingDetails = defaults
        return settings
    }

    private static func method(_ type: String = "card", billing: BillingDetails = BillingDetails()) -> PaymentMethod {
        PaymentMethod(id: "pm_1", allowRedisplay: "unspecified", billingDetails: billing, created: 0, customer: nil, metadata: Metadata(), type: type)
    }

    private static func enforce(_ settings: CustomerSheetSettings, _ method: PaymentMethod) throws -> PaymentMethod {
        try SheetRules.enforce(settings, on: method, billingParam: "billing_details", typeParam: "type")
    }

    @Test func aTypeTheSettingsDoNotAllowIsRefusedNamingTheType() {
        let error = #expect(throws: PurseError.self) { try Self.enforce(Self.settings(types: ["card"]), Self.method("sepa_debit")) }
        #expect(error?.param == "type")
    }

    @Test(arguments: ["name", "email", "phone"])
    func alwaysRequiresTheField(field: String) {
        let settings = Self.settings(
            name: field == "name" ? "always" : "automatic", email: field == "email" ? "always" : "automatic",
            phone: field == "phone" ? "always" : "automatic"
        )
        let error = #expect(throws: PurseError.self) { try Self.enforce(settings, Self.method()) }
        #expect(error?.param == "billing_details[\(field)]")
    }

    @Test func alwaysIsSatisfiedByTheDefaultsWhenTheyAreAttached() throws {
        let settings = Self.settings(name: "always", attach: true, defaults: BillingDetails(name: "Jenny Rosen"))
        #expect(try Self.enforce(settings, Self.method()).billingDetails.name == "Jenny Rosen")
    }

    @Test func neverAcceptsTheDefaultAndRefusesAnythingElse() throws {
        let settings = Self.settings(email: "never", defaults: BillingDetails(email: "j@example.com"))
        #expect(try Self.enforce(settings, Self.method(billing: BillingDetails(email: "j@example.com"))).billingDetails.email == "j@example.com")
        let error = #expect(throws: PurseError.self) {
            try Self.enforce(settings, Self.method(billing: BillingDetails(email: "other@example.com")))
        }
        #expect(error?.param == "billing_details[email]")
    }

    @Test(arguments: [("sepa_debit", "name"), ("sepa_debit", "email"), ("us_bank_account", "name")])
    func automaticRequiresWhatTheTypeNeeds(type: String, field: String) {
        var billing = BillingDetails(email: "j@example.com", name: "Jenny")
        if field == "name" { billing.name = nil } else { billing.email = nil }
        let error = #expect(throws: PurseError.self) { try Self.enforce(Self.settings(), Self.method(type, billing: billing)) }
        #expect(error?.param == "billing_details[\(field)]")
    }

    @Test func automaticAsksNothingOfACard() throws {
        #expect(try Self.enforce(Self.settings(), Self.method()).billingDetails == BillingDetails())
    }

    @Test func aFullAddressNeedsItsLinesCityPostalCodeCountryAndAUSState() throws {
        let settings = Self.settings(address: "full")
        var address = Address(city: "Paris", country: "FR", line1: "1 rue", postalCode: "75001")
        #expect(try Self.enforce(settings, Self.method(billing: BillingDetails(address: address))).billingDetails.address.city == "Paris")
        address.country = "US"
        let error = #expect(throws: PurseError.self) { try Self.enforce(settings, Self.method(billing: BillingDetails(address: address))) }
        #expect(error?.param?.hasPrefix("billing_details[address]") == true)
    }
}

@Suite("What a mobile sheet is offered")
struct OfferTests {
    private static func settings(_ types: [String]) -> CustomerSheetSettings {
        var settings = CustomerSheetSettings.initial(id: "css_1", name: nil, isDefault: true, created: 0)
        settings.paymentMethodTypes = types
        return settings
    }

    @Test func everyTypePurseSavesIsOfferedWhenTheSettingsAllowIt() {
        let offer = ElementsSessionService.offer(
            requested: ["card", "us_bank_account", "sepa_debit"], settings: Self.settings(["card", "us_bank_account", "sepa_debit"]))
        #expect(offer.offered == ["card", "us_bank_account", "sepa_debit"])
        #expect(offer.withheld.isEmpty)
    }

    @Test func theSettingsAndWhatPurseSavesBoundTheOffer() {
        let offer = ElementsSessionService.offer(requested: ["sepa_debit", "ideal", "card", "card"], settings: Self.settings(["card"]))
        #expect(offer.offered == ["card"])
        #expect(offer.withheld.map(\.type) == ["sepa_debit", "ideal"])
        #expect(offer.withheld.map(\.reason) == ["not_in_customer_sheet_settings", "unactivated"])
    }

    @Test func theMobileSessionContractEchoesAValidRevisionOnly() {
        #expect(MobileSessionContract(requestHeader: nil) == nil)
        #expect(MobileSessionContract(requestHeader: "major=1; revision=0123456789abcdef")?.revision == "0123456789abcdef")
        #expect(MobileSessionContract(requestHeader: "major=1; revision=NOTHEX")?.revision == MobileSessionContract.knownRevision)
        #expect(MobileSessionContract(requestHeader: "major=1; revision=0123456789abcdef")?.responseHeader == "major=1; revision=0123456789abcdef")
    }
}

@Suite("Cards, banks and their networks")
struct InstrumentRuleTests {
    @Test(arguments: [
        ("4242424242424242", true), ("4242 4242 4242 4242", true), ("4242-4242-4242-4242", true), ("4242424242424241", false), ("1234", false),
        ("abcd", false),
    ])
    func cardNumbersAreCheckedByLuhnAndLength(number: String, valid: Bool) {
        #expect((CardNumber(number) != nil) == valid)
    }

    @Test(arguments: [
        ("4000002500001001", ["cartes_bancaires", "visa"]), ("5555552500001001", ["cartes_bancaires", "mastercard"]), ("4242424242424242", nil),
    ])
    func coBadgedTestCardsRunOnTwoNetworks(number: String, networks: [String]?) throws {
        let card = try #require(CardNumber(number))
        #expect(TestProcessor().enroll(card, cvc: nil).cardNetworks == networks)
    }

    @Test func aPreferenceTheCardDoesNotRunOnIsStoredAsInvalid() {
        let available = ["cartes_bancaires", "visa"]
        #expect(CardNetworks.networks(available: available, preferred: .cartesBancaires).preferred == "cartes_bancaires")
        #expect(CardNetworks.networks(available: available, preferred: .mastercard).preferred == "invalid_preference")
        #expect(CardNetworks.networks(available: available, preferred: nil).preferred == nil)
    }

    @Test func theHoldersChoiceIsTheDisplayBrand() {
        let chosen = CardNetworks.networks(available: ["cartes_bancaires", "visa"], preferred: .cartesBancaires)
        #expect(CardNetworks.displayBrand(brand: .visa, networks: chosen) == "cartes_bancaires")
        let invalid = CardNetworks.networks(available: ["cartes_bancaires", "visa"], preferred: .mastercard)
        #expect(CardNetworks.displayBrand(brand: .visa, networks: invalid) == "visa")
        #expect(CardNetworks.displayBrand(brand: .amex, networks: .init(available: ["amex"])) == "american_express")
    }

    @Test(arguments: [("DE89370400440532013000", true), ("DE89 3704 0044 0532 0130 00", true), ("DE89370400440532013001", false), ("XX00", false)])
    func ibansAreCheckedByCountryLengthAndMod97(iban: String, valid: Bool) {
        #expect((IBAN(iban) != nil) == valid)
    }

    @Test(arguments: [("110000000", true), ("110000001", false), ("12345678", false)])
    func routingNumbersPassTheABAChecksum(routing: String, valid: Bool) {
        #expect(((try? USBankAccountNumber(routingNumber: routing, accountNumber: "000123456789")) != nil) == valid)
    }

    @Test(arguments: [
        ("4000000000000002", "generic_decline"), ("4000000000009995", "insufficient_funds"), ("4000000000000069", "expired_card"),
    ])
    func declineTestCardsAreDeclinedWithTheirCode(number: String, declineCode: String) async throws {
        let processor = TestProcessor()
        let enrollment = processor.enroll(try #require(CardNumber(number)), cvc: "123")
        let decision = await processor.decide(reference: enrollment.reference, type: .card, at: .setup)
        guard case .declined(_, let code, _) = decision else {
            Issue.record("not declined: \(decision)")
            return
        }
        #expect(code == declineCode)
    }

    @Test func aThreeDSecureCardNeedsAuthenticationToBeSetUpButNotToBeAttached() async throws {
        let processor = TestProcessor()
        let reference = processor.enroll(try #require(CardNumber("4000002500003155")), cvc: nil).reference
        #expect(await processor.decide(reference: reference, type: .card, at: .setup) == .requiresAuthentication)
        #expect(await processor.decide(reference: reference, type: .card, at: .attach) == .approved)
    }
}

@Suite("Text and URLs")
struct TextRuleTests {
    @Test(arguments: ["jenny.rosen+tag@example.com", "a@b", "名前@例え.jp"])
    func emailsStripeAcceptsAreAccepted(email: String) throws {
        #expect(try TextRules.email(email, param: "email") == email)
    }

    /// ASCII is judged on its own (below "!" and DEL refused); any other scalar by Unicode's tables.
    @Test(arguments: ["a\t@example.com", "a\u{7F}@example.com", "a\u{A0}@example.com", "a\u{2028}@example.com", "a\u{85}@example.com"])
    func whitespaceAndControlsAreRefusedInEmails(email: String) {
        let error = #expect(throws: PurseError.self) { try TextRules.email(email, param: "email") }
        #expect(error?.code == "email_invalid")
    }

    /// Limits count characters, not bytes: 100 three-byte characters fit a limit of 100, 101 do not.
    @Test func limitsCountCharactersNotBytes() throws {
        let hundred = String(repeating: "名", count: 100)
        #expect(try TextRules.singleLine(hundred, to: 100, param: "name") == hundred)
        #expect(throws: PurseError.self) { try TextRules.singleLine(hundred + "名", to: 100, param: "name") }
        let email = String(repeating: "é", count: 300) + "@example.com"
        #expect(try TextRules.email(email, param: "email") == email)
    }

    @Test(arguments: ["Jenny\nRosen", "Jenny\rRosen", "a\r\nb"])
    func lineBreaksAreRefusedInSingleLineFields(value: String) {
        let error = #expect(throws: PurseError.self) { try TextRules.singleLine(value, to: 100, param: "name") }
        #expect(error?.param == "name")
    }

    @Test func formActionAllowsTheReturnURLsOriginOrScheme() {
        #expect(ReturnURL.formActionSource("https://shop.example:8443/done?x=1") == "https://shop.example:8443")
        #expect(ReturnURL.formActionSource("myapp://stripe-redirect") == "myapp:")
        #expect(ReturnURL.formActionSource("http://[::1]:8080/back") == "http://[::1]:8080")
    }
}

@Suite("Setup intent states")
struct SetupIntentStateTests {
    @Test(arguments: SetupIntentStatus.allCases)
    func onlyTheRequiresStatesAreOpen(status: SetupIntentStatus) {
        #expect(status.isOpen == status.rawValue.hasPrefix("requires_"))
    }
}
