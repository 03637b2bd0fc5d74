import Foundation
import PurseClient
import TestSupport
import Testing

/// The selected option: shared by every device through the server, read from the local copy
/// when Purse cannot be reached, and shown with its display data.
// Serialized: each test starts its own server and database, and the whole test run shares one
// PostgreSQL with a connection limit.
@Suite("The selected option and its display", .serialized)
struct SelectionTests {
    @Test func aSecondDeviceSeesTheSelection() async throws {
        try await LiveServer.with { server in
            let shop = try await Shop.open(on: server)
            let visa = try await shop.attach("pm_card_visa")
            let phone = shop.adapter(.ephemeralKey)
            let tablet = shop.adapter(.customerSession)

            try await phone.setSelectedPaymentOption(paymentOption: .stripeId(visa))
            #expect(try await tablet.fetchSelectedPaymentOption() == .stripeId(visa))
            try await tablet.setSelectedPaymentOption(paymentOption: .applePay)
            #expect(try await phone.fetchSelectedPaymentOption() == .applePay)
            let customer = try await shop.account.secret.get("/v1/customers/\(shop.customer)")
            #expect(
                customer.json["invoice_settings"]?["default_payment_method"]?.stringValue == visa,
                "Apple Pay keeps the saved default for off-session use"
            )
        }
    }

    @Test func theLastKnownSelectionIsReadWhenPurseCannotBeReached() async throws {
        try await LiveServer.with { server in
            let shop = try await Shop.open(on: server)
            let visa = try await shop.attach("pm_card_visa")
            let disk = MemorySelectionStore()
            let online = shop.adapter(.ephemeralKey)
            try await online.setSelectedPaymentOption(paymentOption: .stripeId(visa))
            // Another launch of the app, with a copy on disk, reads it while online.
            #expect(try await shop.adapter(.ephemeralKey, store: disk).fetchSelectedPaymentOption() == .stripeId(visa))
            #expect(disk.selectedPaymentOption(forCustomer: shop.customer) == visa)

            // Purse is out of reach (its backend still answers the provider): the disk copy stands in.
            let refusing = try RefusingPort()
            defer { refusing.release() }
            let unreachable = try #require(URL(string: "http://127.0.0.1:\(refusing.port)"))
            let offline = shop.adapter(.ephemeralKey, store: disk, baseURL: unreachable)
            #expect(try await offline.fetchSelectedPaymentOption() == .stripeId(visa))
            let listing = try await #require(throws: PurseClientError.self) { try await offline.fetchPaymentMethods() }
            #expect(listing.kind == .transport)
            #expect(listing.requestID == nil)

            // With no copy anywhere, the transport error comes through.
            let blank = shop.adapter(.ephemeralKey, baseURL: unreachable)
            let error = try await #require(throws: PurseClientError.self) { try await blank.fetchSelectedPaymentOption() }
            #expect(error.kind == .transport)
            #expect(error.httpStatus == nil)

            // The server goes away under a running adapter: its memory answers.
            await server.stop()
            #expect(try await online.fetchSelectedPaymentOption() == .stripeId(visa))
        }
    }

    @Test func userDefaultsKeepsOneDictionaryPerStore() throws {
        let suite = "purse-client-tests-\(UUID().uuidString)"
        let defaults = try #require(UserDefaults(suiteName: suite))
        defer { defaults.removePersistentDomain(forName: suite) }
        let store = UserDefaultsSelectionStore(defaults: defaults)
        #expect(store.selectedPaymentOption(forCustomer: "cus_a") == nil)
        store.setSelectedPaymentOption("pm_123", forCustomer: "cus_a")
        store.setSelectedPaymentOption("", forCustomer: "cus_b")
        #expect(store.selectedPaymentOption(forCustomer: "cus_a") == "pm_123")
        #expect(store.selectedPaymentOption(forCustomer: "cus_b") == "")
        #expect(UserDefaultsSelectionStore(defaults: defaults).selectedPaymentOption(forCustomer: "cus_a") == "pm_123")
    }

    @Test(arguments: AdapterMode.allCases)
    func theSelectionIsShownWithItsLabelAndBrand(mode: AdapterMode) async throws {
        try await LiveServer.with { server in
            let shop = try await Shop.open(on: server)
            let adapter = shop.adapter(mode)
            #expect(try await adapter.retrievePaymentOptionSelection() == nil)

            let expectations: [(token: String, label: String, brand: String?, title: String?)] = [
                ("pm_card_visa", "•••• 4242", "visa", "Visa"),
                ("pm_card_amex", "•••• 0005", "amex", "American Express"),
                ("pm_usBankAccount_success", "••••6789", nil, "STRIPE TEST BANK"),
                ("pm_sepaDebit_success", "••••3000", nil, "SEPA Debit"),
            ]
            for expected in expectations {
                let id = try await shop.attach(expected.token)
                try await adapter.setSelectedPaymentOption(paymentOption: .stripeId(id))
                let selection = try #require(try await adapter.retrievePaymentOptionSelection())
                guard case .paymentMethod(let method, _) = selection else {
                    Issue.record("Expected a payment method for \(expected.token), got \(selection)")
                    continue
                }
                #expect(method.id == id)
                #expect(selection.option == .stripeId(id))
                #expect(selection.displayData.label == expected.label)
                #expect(selection.displayData.brand == expected.brand)
                if expected.token.hasPrefix("pm_usBankAccount") {
                    #expect(selection.displayData.title == method.usBankAccount?.bankName ?? "Bank account")
                } else {
                    #expect(selection.displayData.title == expected.title)
                }
            }
            try await adapter.setSelectedPaymentOption(paymentOption: .applePay)
            #expect(try await adapter.retrievePaymentOptionSelection() == .applePay(paymentOptionDisplayData: .applePay))
            #expect(try await adapter.retrievePaymentOptionSelection()?.displayData.label == "Apple Pay")
            try await adapter.setSelectedPaymentOption(paymentOption: .link)
            #expect(try await adapter.retrievePaymentOptionSelection()?.displayData.label == "Link")
        }
    }

    @Test func aSelectionTheSettingsHideIsNotShown() async throws {
        try await LiveServer.with { server in
            let shop = try await Shop.open(on: server)
            let credit = try await shop.attach("pm_card_visa")
            let adapter = shop.adapter(.ephemeralKey)
            try await adapter.setSelectedPaymentOption(paymentOption: .stripeId(credit))
            _ = try await shop.account.secret.post("/v1/customer_sheet_settings/default", "saved_payment_method_filter[card][funding][0]=debit")
            #expect(try await adapter.fetchSelectedPaymentOption() == .stripeId(credit), "still selected on the server")
            #expect(try await adapter.retrievePaymentOptionSelection() == nil, "but the sheet cannot show it")
        }
    }
}
