import Foundation
import PurseClient
import TestSupport
import Testing

/// Adding payment methods from entered details: setup intents with 3D Secure and declines, bank
/// debits with their mandate, the sheet settings applied, and the card-only path without setup
/// intents.
// Serialized: each test starts its own server and database, and the whole test run shares one
// PostgreSQL with a connection limit.
@Suite("Adding payment methods", .serialized)
struct SetupFlowTests {
    static let visa = PaymentMethodDetails.card(number: "4242 4242 4242 4242", expMonth: 12, expYear: 2034, cvc: "123")

    @Test(arguments: AdapterMode.allCases)
    func aCardIsSavedThroughASetupIntent(mode: AdapterMode) async throws {
        try await LiveServer.with { server in
            let shop = try await Shop.open(on: server)
            let adapter = shop.adapter(mode)
            guard case .succeeded(let method) = try await adapter.addPaymentMethod(Self.visa) else {
                Issue.record("Expected the card to be saved at once")
                return
            }
            #expect(method.card?.last4 == "4242")
            #expect(method.customer == shop.customer)
            #expect(method.allowRedisplay == (mode == .customerSession ? "always" : "unspecified"), "as stripe-ios saves in each mode")
            #expect(try await adapter.fetchPaymentMethods().map(\.id) == [method.id])
            #expect(await shop.log.setupIntents == 1)
        }
    }

    @Test(arguments: AdapterMode.allCases)
    func threeDSecureIsCompletedOnThePageThenFinished(mode: AdapterMode) async throws {
        try await LiveServer.with { server in
            let shop = try await Shop.open(on: server)
            let adapter = shop.adapter(mode)
            let card = PaymentMethodDetails.card(number: "4000002500003155", expMonth: 12, expYear: 2034, cvc: "123")
            // An app would give its own scheme; a page of Purse's lets the test follow the redirect.
            let returnURL = server.baseURL.appendingPathComponent("healthz")
            guard case .requiresAction(let pending) = try await adapter.addPaymentMethod(card, returnURL: returnURL) else {
                Issue.record("Expected 3D Secure")
                return
            }
            #expect(pending.url.absoluteString.hasPrefix(server.baseURL.absoluteString + "/v1/setup_intents/\(pending.setupIntentID)/authenticate/"))
            #expect(pending.returnURL == returnURL)
            #expect(try await adapter.fetchPaymentMethods().isEmpty, "nothing is saved before authentication")
            guard case .requiresAction = try await adapter.finishSetup(pending) else {
                Issue.record("Finishing before the customer authenticated must still ask for it")
                return
            }

            // The customer presses "Complete authentication"; the page sends them back to the app.
            let page = try await HTTPCall.send("POST", pending.url, body: "action=complete")
            #expect(page.status == 200)
            #expect(String(decoding: page.body, as: UTF8.self).contains("ok"), "redirected to the return URL")
            guard case .succeeded(let method) = try await adapter.finishSetup(pending) else {
                Issue.record("Expected the card to be saved after authentication")
                return
            }
            #expect(method.card?.last4 == "3155")
            #expect(try await adapter.fetchPaymentMethods().map(\.id) == [method.id])
            #expect(try await shop.paymentMethod(method.id).json["customer"]?.stringValue == shop.customer)
        }
    }

    @Test func aFailedAuthenticationIsReportedWhenFinishing() async throws {
        try await LiveServer.with { server in
            let shop = try await Shop.open(on: server)
            let adapter = shop.adapter(.ephemeralKey)
            let card = PaymentMethodDetails.card(number: "4000002760003184", expMonth: 12, expYear: 2034, cvc: "123")
            guard case .requiresAction(let pending) = try await adapter.addPaymentMethod(card) else {
                Issue.record("Expected 3D Secure")
                return
            }
            #expect(try await HTTPCall.send("POST", pending.url, body: "action=fail").status == 200)
            let error = try await #require(throws: PurseClientError.self) { try await adapter.finishSetup(pending) }
            #expect(error.code == "setup_intent_authentication_failure")
            #expect(error.requestID?.hasPrefix("req_") == true)
            #expect(try await adapter.fetchPaymentMethods().isEmpty)
        }
    }

    @Test(arguments: AdapterMode.allCases)
    func aDeclinedCardIsACardDeclinedErrorWithItsCode(mode: AdapterMode) async throws {
        try await LiveServer.with { server in
            let shop = try await Shop.open(on: server)
            let adapter = shop.adapter(mode)
            let declined = PaymentMethodDetails.card(number: "4000000000000002", expMonth: 12, expYear: 2034, cvc: "123")
            let error = try await #require(throws: PurseClientError.self) { try await adapter.addPaymentMethod(declined) }
            #expect(error.kind == .cardDeclined(code: "card_declined"))
            #expect(error.declineCode == "generic_decline")
            #expect(error.httpStatus == 402)
            #expect(error.requestID?.hasPrefix("req_") == true)
            #expect(try await adapter.fetchPaymentMethods().isEmpty, "nothing is saved")

            let insufficient = PaymentMethodDetails.card(number: "4000000000009995", expMonth: 12, expYear: 2034, cvc: "123")
            let second = try await #require(throws: PurseClientError.self) { try await adapter.addPaymentMethod(insufficient) }
            #expect(second.declineCode == "insufficient_funds")
        }
    }

    @Test(arguments: AdapterMode.allCases)
    func bankDebitsCarryTheirMandate(mode: AdapterMode) async throws {
        try await LiveServer.with { server in
            let shop = try await Shop.open(on: server)
            let adapter = shop.adapter(mode)
            let billing = BillingDetails(email: "jane@example.com", name: "Jane Doe")
            guard case .succeeded(let sepa) = try await adapter.addPaymentMethod(.sepaDebit(iban: "DE89370400440532013000"), billingDetails: billing),
                case .succeeded(let ach) = try await adapter.addPaymentMethod(
                    .usBankAccount(
                        routingNumber: "110000000", accountNumber: "000123456789", accountHolderType: "individual", accountType: "checking"),
                    billingDetails: billing
                )
            else {
                Issue.record("Expected both bank accounts to be saved")
                return
            }
            #expect(sepa.sepaDebit?.last4 == "3000")
            #expect(ach.usBankAccount?.last4 == "6789")
            #expect(Set(try await adapter.fetchPaymentMethods().map(\.id)) == [sepa.id, ach.id])
            let intents = try await shop.account.secret.get("/v1/setup_intents", query: "customer=\(shop.customer)")
            let mandates = intents.json["data"]?.arrayValue?.compactMap { $0["mandate"]?.stringValue } ?? []
            #expect(mandates.count == 2 && mandates.allSatisfy { $0.hasPrefix("mandate_") })

            let closed = try await #require(throws: PurseClientError.self) {
                try await adapter.addPaymentMethod(
                    .usBankAccount(
                        routingNumber: "110000000", accountNumber: "000111111113", accountHolderType: "individual", accountType: "checking"),
                    billingDetails: billing
                )
            }
            #expect(closed.code == "bank_account_unusable")
            #expect(closed.httpStatus == 400)
        }
    }

    @Test(arguments: AdapterMode.allCases)
    func theSettingsInForceDecideWhatIsSent(mode: AdapterMode) async throws {
        try await LiveServer.with { server in
            let shop = try await Shop.open(on: server)
            _ = try await shop.account.secret.post(
                "/v1/customer_sheet_settings/default",
                "billing_details_collection[name]=always&billing_details_collection[email]=never"
                    + "&billing_details_collection[attach_defaults_to_payment_method]=true"
                    + "&default_billing_details[email]=billing%40example.com&default_billing_details[address][country]=US"
            )
            let adapter = shop.adapter(mode)
            let form = BillingDetailsForm(settings: try await adapter.sheetSettings(), paymentMethodType: "card")
            #expect(form.fields == [.name])
            #expect(form.attachesDefaults)

            // The email was typed somewhere the sheet does not show it: it is dropped, the default attached.
            let entered = BillingDetails(email: "typed@example.com", name: "Jane Doe")
            guard case .succeeded(let method) = try await adapter.addPaymentMethod(Self.visa, billingDetails: entered) else {
                Issue.record("Expected the card to be saved")
                return
            }
            #expect(method.billingDetails.name == "Jane Doe")
            #expect(method.billingDetails.email == "billing@example.com")
            #expect(method.billingDetails.address.country == "US")

            // A name is required: without it Purse refuses, naming the field.
            let missing = try await #require(throws: PurseClientError.self) { try await adapter.addPaymentMethod(Self.visa) }
            #expect(missing.kind == .invalidRequest(param: "payment_method_data[billing_details][name]", message: missing.message))
        }
    }

    @Test(arguments: AdapterMode.allCases)
    func withoutSetupIntentsCardsAreCreatedThenAttached(mode: AdapterMode) async throws {
        try await LiveServer.with { server in
            let shop = try await Shop.open(on: server)
            let adapter = shop.adapter(mode, setupIntents: false)
            guard case .succeeded(let method) = try await adapter.addPaymentMethod(Self.visa) else {
                Issue.record("Expected the card to be saved")
                return
            }
            #expect(method.customer == shop.customer)
            #expect(try await adapter.fetchPaymentMethods().map(\.id) == [method.id])
            #expect(await shop.log.setupIntents == 0)
            let sepa = try await #require(throws: PurseClientError.self) {
                try await adapter.addPaymentMethod(.sepaDebit(iban: "DE89370400440532013000"))
            }
            #expect(sepa.kind == .invalidRequest(param: "type", message: "Only cards can be added without a setup intent."))
        }
    }
}
