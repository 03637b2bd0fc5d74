import Foundation
import PurseClient
import TestSupport
import Testing

/// Shows only debit cards, as Stripe's docs customize `StripeCustomerAdapter`.
final class DebitCardsOnly: PurseCustomerAdapter, @unchecked Sendable {
    // @unchecked: adds no stored properties to PurseCustomerAdapter, which is safe to share.
    override func fetchPaymentMethods() async throws -> [PaymentMethod] {
        try await super.fetchPaymentMethods().filter { $0.card?.funding == "debit" }
    }
}

// Serialized: each test starts its own server and database, and the whole test run shares one
// PostgreSQL with a connection limit.
@Suite("Subclassing the adapter to filter", .serialized)
struct SubclassFilterTests {
    @Test(arguments: AdapterMode.allCases)
    func aSubclassHidesWhatItFiltersEverywhereTheSheetLooks(mode: AdapterMode) async throws {
        try await LiveServer.with { server in
            let shop = try await Shop.open(on: server)
            let credit = try await shop.attach("pm_card_visa")
            let debit = try await shop.attach("pm_card_visa_debit")
            _ = try await shop.attach("pm_sepaDebit_success")
            let adapter: PurseCustomerAdapter =
                switch mode {
                case .ephemeralKey:
                    DebitCardsOnly(
                        customerEphemeralKeyProvider: { try await shop.ephemeralKey() },
                        publishableKey: shop.account.publishableKey, baseURL: server.baseURL
                    )
                case .customerSession:
                    DebitCardsOnly(
                        customerSessionClientSecretProvider: { try await shop.customerSession() },
                        publishableKey: shop.account.publishableKey, baseURL: server.baseURL
                    )
                }
            #expect(try await adapter.fetchPaymentMethods().map(\.id) == [debit])

            // retrievePaymentOptionSelection goes through the override, as stripe-ios's does.
            try await adapter.setSelectedPaymentOption(paymentOption: .stripeId(credit))
            #expect(try await adapter.retrievePaymentOptionSelection() == nil)
            try await adapter.setSelectedPaymentOption(paymentOption: .stripeId(debit))
            #expect(try await adapter.retrievePaymentOptionSelection()?.displayData.label == "•••• 5556")

            // Filtering hides; it does not stop the owner removing a hidden method.
            try await adapter.detachPaymentMethod(paymentMethodId: credit)
            #expect(try await shop.paymentMethod(credit).json["customer"] == .null)
        }
    }
}
