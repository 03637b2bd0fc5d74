public import PurseModels

/// What a customer sheet needs from a backend, mirroring stripe-ios's `CustomerAdapter`
/// (stripe-reference §11.1), so sheet code written against one reads the same against the other.
///
/// ``PurseCustomerAdapter`` is the ready implementation for Purse; subclass it to change what
/// the sheet shows (see its documentation), or conform your own type to talk to something else.
public protocol CustomerAdapter: Sendable {
    /// The customer's saved payment methods to show, newest first.
    func fetchPaymentMethods() async throws -> [PaymentMethod]

    /// Attaches a payment method made with the publishable key to the customer. Sheets use it
    /// only when they cannot create setup intents (cards only).
    func attachPaymentMethod(_ paymentMethodId: String) async throws

    /// Removes a saved payment method from the customer, for good (a detached method can never
    /// be attached again).
    func detachPaymentMethod(paymentMethodId: String) async throws

    /// Stores the customer's choice; nil clears it.
    func setSelectedPaymentOption(paymentOption: CustomerPaymentOption?) async throws

    /// The customer's choice, or nil when there is none.
    func fetchSelectedPaymentOption() async throws -> CustomerPaymentOption?

    /// The client secret of a new setup intent for the customer, from the app's backend.
    func setupIntentClientSecretForCustomerAttach() async throws -> String

    /// Changes a saved payment method (billing details, a card's expiry, ...) and returns it.
    /// Takes Purse's ``PaymentMethodUpdateParams`` where stripe-ios takes its iOS-only
    /// `STPPaymentMethodUpdateParams`.
    func updatePaymentMethod(
        paymentMethodId: String, paymentMethodUpdateParams: PaymentMethodUpdateParams
    ) async throws -> PaymentMethod

    /// The types the sheet may show and add (`card`, `us_bank_account`, `sepa_debit`), or nil
    /// for every type the server allows.
    var paymentMethodTypes: [String]? { get }

    /// Whether ``setupIntentClientSecretForCustomerAttach()`` can work, that is whether the app
    /// gave a setup-intent provider. Without one, sheets can add cards only.
    var canCreateSetupIntents: Bool { get }
}
