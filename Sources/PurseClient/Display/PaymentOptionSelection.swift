public import PurseModels

/// The customer's selected option ready to show, as stripe-ios's
/// `CustomerSheet.PaymentOptionSelection`: what ``PurseCustomerAdapter/retrievePaymentOptionSelection()`` returns.
public enum PaymentOptionSelection: Sendable, Hashable {
    /// Apple Pay.
    case applePay(paymentOptionDisplayData: PaymentOptionDisplayData)
    /// Link.
    case link(paymentOptionDisplayData: PaymentOptionDisplayData)
    /// A saved payment method.
    case paymentMethod(paymentMethod: PaymentMethod, paymentOptionDisplayData: PaymentOptionDisplayData)

    /// The label and brand to show.
    public var displayData: PaymentOptionDisplayData {
        switch self {
        case .applePay(let data), .link(let data), .paymentMethod(_, let data): data
        }
    }

    /// The option it stands for.
    public var option: CustomerPaymentOption {
        switch self {
        case .applePay: .applePay
        case .link: .link
        case .paymentMethod(let method, _): .stripeId(method.id)
        }
    }
}
