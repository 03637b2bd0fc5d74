import Foundation
import PurseClient
import TestSupport
import Testing

/// Every `CustomerAdapter` requirement against a live `purse serve`, with an ephemeral key and
/// with a customer session.
// Serialized: each test starts its own server and database, and the whole test run shares one
// PostgreSQL with a connection limit.
@Suite("The adapter's protocol methods, in both modes", .serialized)
struct CustomerAdapterTests {
    @Test(arguments: AdapterMode.allCases)
    func fetchListsTheSavedMethodsNewestFirstWithOneCredential(mode: AdapterMode) async throws {
        try await LiveServer.with { server in
            let shop = try await Shop.open(on: server)
            let visa = try await shop.attach("pm_card_visa")
            let sepa = try await shop.attach("pm_sepaDebit_success")
            let mastercard = try await shop.attach("pm_card_mastercard")
            let adapter = shop.adapter(mode)

            let all = try await adapter.fetchPaymentMethods()
            #expect(all.map(\.id) == [mastercard, sepa, visa])
            #expect(all.first?.card?.last4 == "4444")
            #expect(all.allSatisfy { $0.customer == shop.customer })
            let cardsOnly = try await shop.adapter(mode, paymentMethodTypes: ["card"]).fetchPaymentMethods()
            #expect(cardsOnly.map(\.id) == [mastercard, visa])

            _ = try await adapter.fetchPaymentMethods()
            #expect(await shop.log.credentialCalls == 2, "one credential per adapter, reused across calls")
            #expect(adapter.paymentMethodTypes == nil)
            #expect(shop.adapter(mode, paymentMethodTypes: ["card"]).paymentMethodTypes == ["card"])
        }
    }

    @Test(arguments: AdapterMode.allCases)
    func attachAndDetach(mode: AdapterMode) async throws {
        try await LiveServer.with { server in
            let shop = try await Shop.open(on: server)
            let adapter = shop.adapter(mode)
            // What a sheet without setup intents does: tokenize with the publishable key, then attach.
            let created = try await shop.account.publishable.post(
                "/v1/payment_methods",
                "type=card&card[number]=5555555555554444&card[exp_month]=12&card[exp_year]=2034&card[cvc]=123&allow_redisplay=always"
            )
            let id = try #require(created.json["id"]?.stringValue)
            try await adapter.attachPaymentMethod(id)
            #expect(try await shop.paymentMethod(id).json["customer"]?.stringValue == shop.customer)
            #expect(try await adapter.fetchPaymentMethods().map(\.id) == [id])

            try await adapter.detachPaymentMethod(paymentMethodId: id)
            #expect(try await shop.paymentMethod(id).json["customer"] == .null)
            #expect(try await adapter.fetchPaymentMethods().isEmpty)
        }
    }

    @Test(arguments: AdapterMode.allCases)
    func selectedOptionRoundTripsThroughTheServer(mode: AdapterMode) async throws {
        try await LiveServer.with { server in
            let shop = try await Shop.open(on: server)
            let visa = try await shop.attach("pm_card_visa")
            let adapter = shop.adapter(mode)
            #expect(try await adapter.fetchSelectedPaymentOption() == nil)

            try await adapter.setSelectedPaymentOption(paymentOption: .stripeId(visa))
            #expect(try await adapter.fetchSelectedPaymentOption() == .stripeId(visa))
            let customer = try await shop.account.secret.get("/v1/customers/\(shop.customer)")
            #expect(customer.json["invoice_settings"]?["default_payment_method"]?.stringValue == visa, "selecting a method makes it the default")

            for option in [CustomerPaymentOption.applePay, .link] {
                try await adapter.setSelectedPaymentOption(paymentOption: option)
                #expect(try await adapter.fetchSelectedPaymentOption() == option)
                let stored = try await shop.account.secret.get("/v1/customers/\(shop.customer)/selected_payment_option")
                #expect(stored.json["option"]?.stringValue == option.rawValue)
            }
            try await adapter.setSelectedPaymentOption(paymentOption: nil)
            #expect(try await adapter.fetchSelectedPaymentOption() == nil)
            #expect(try await shop.account.secret.get("/v1/customers/\(shop.customer)/selected_payment_option").json["option"] == .null)

            // Detaching the selected method clears the selection, here and on the server.
            try await adapter.setSelectedPaymentOption(paymentOption: .stripeId(visa))
            try await adapter.detachPaymentMethod(paymentMethodId: visa)
            #expect(try await adapter.fetchSelectedPaymentOption() == nil)
        }
    }

    @Test(arguments: AdapterMode.allCases)
    func setupIntentSecretsComeFromTheProvider(mode: AdapterMode) async throws {
        try await LiveServer.with { server in
            let shop = try await Shop.open(on: server)
            let adapter = shop.adapter(mode)
            #expect(adapter.canCreateSetupIntents)
            let secret = try await adapter.setupIntentClientSecretForCustomerAttach()
            #expect(secret.hasPrefix("seti_") && secret.contains("_secret_"))
            #expect(await shop.log.setupIntents == 1)

            let withoutProvider = shop.adapter(mode, setupIntents: false)
            #expect(!withoutProvider.canCreateSetupIntents)
            let error = try await #require(throws: PurseClientError.self) {
                try await withoutProvider.setupIntentClientSecretForCustomerAttach()
            }
            guard case .invalidRequest(let param, _) = error.kind else {
                Issue.record("Expected invalidRequest, got \(error)")
                return
            }
            #expect(param == "setupIntentClientSecretProvider")
        }
    }

    @Test(arguments: AdapterMode.allCases)
    func updateChangesOnlyWhatIsSent(mode: AdapterMode) async throws {
        try await LiveServer.with { server in
            let shop = try await Shop.open(on: server)
            let visa = try await shop.attach("pm_card_visa")
            _ = try await shop.account.secret.post("/v1/payment_methods/\(visa)", "billing_details[email]=jane%40example.com")
            let adapter = shop.adapter(mode)
            let updated = try await adapter.updatePaymentMethod(
                paymentMethodId: visa,
                paymentMethodUpdateParams: PaymentMethodUpdateParams(
                    billingDetails: BillingDetails(address: Address(postalCode: "94107"), name: "Jane Doe"),
                    card: .init(expMonth: 7, expYear: 2031), metadata: ["nickname": "work card"]
                )
            )
            #expect(updated.billingDetails.name == "Jane Doe")
            #expect(updated.billingDetails.email == "jane@example.com", "fields not sent are kept")
            #expect(updated.billingDetails.address.postalCode == "94107")
            #expect(updated.card?.expMonth == 7 && updated.card?.expYear == 2031)
            #expect(updated.metadata["nickname"] == "work card")
            let stored = try await shop.paymentMethod(visa)
            #expect(stored.json["card"]?["exp_year"] == 2031)
            #expect(stored.json["billing_details"]?["name"] == "Jane Doe")
        }
    }

    @Test(arguments: AdapterMode.allCases)
    func sheetSettingsAreTheOnesInForce(mode: AdapterMode) async throws {
        try await LiveServer.with { server in
            let shop = try await Shop.open(on: server)
            _ = try await shop.account.secret.post(
                "/v1/customer_sheet_settings/default",
                "billing_details_collection[name]=always&billing_details_collection[address]=full&payment_method_types[0]=card&payment_method_types[1]=sepa_debit"
            )
            let settings = try await shop.adapter(mode).sheetSettings()
            #expect(settings.billingDetailsCollection.name == "always")
            #expect(settings.paymentMethodTypes == ["card", "sepa_debit"])
            #expect(BillingDetailsForm(settings: settings, paymentMethodType: "card").fields == [.name, .address])
            #expect(BillingDetailsForm(settings: settings, paymentMethodType: "sepa_debit").fields == [.name, .email, .address])
        }
    }

    @Test func unsupportedTypesAreRefusedBeforeAnyRequest() async throws {
        try await LiveServer.with { server in
            let shop = try await Shop.open(on: server)
            let adapter = shop.adapter(.ephemeralKey, paymentMethodTypes: ["card", "ideal"])
            let error = try await #require(throws: PurseClientError.self) { try await adapter.fetchPaymentMethods() }
            #expect(error.kind == .invalidRequest(param: "paymentMethodTypes", message: "Purse sheets do not support ideal."))
            #expect(error.requestID == nil)
        }
    }
}
