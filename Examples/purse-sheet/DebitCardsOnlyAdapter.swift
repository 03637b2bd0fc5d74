import PurseClient

/// Shows only debit cards, the customization Stripe's docs show for `StripeCustomerAdapter`:
/// override ``PurseCustomerAdapter/fetchPaymentMethods()`` and filter what `super` returns.
/// It hides saved methods only; what can be added is unchanged.
final class DebitCardsOnlyAdapter: PurseCustomerAdapter, @unchecked Sendable {
    // @unchecked: adds no stored properties to PurseCustomerAdapter, which is safe to share.
    override func fetchPaymentMethods() async throws -> [PaymentMethod] {
        try await super.fetchPaymentMethods().filter { $0.type == "card" && $0.card?.funding == "debit" }
    }
}
