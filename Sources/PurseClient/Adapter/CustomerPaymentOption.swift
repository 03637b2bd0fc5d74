/// A customer's choice among their ways to pay, as stripe-ios's `CustomerPaymentOption`: its
/// ``rawValue`` is what Purse stores (`apple_pay`, `link`, or the payment method's id).
public enum CustomerPaymentOption: Sendable, Hashable, RawRepresentable {
    /// Apple Pay (`apple_pay`).
    case applePay
    /// Link (`link`).
    case link
    /// A saved payment method, by id (`pm_...`).
    case stripeId(String)

    /// `apple_pay`, `link`, or the payment method's id.
    public var rawValue: String {
        switch self {
        case .applePay: "apple_pay"
        case .link: "link"
        case .stripeId(let id): id
        }
    }

    /// Reads a stored value; an empty string is no option at all.
    public init?(rawValue: String) {
        switch rawValue {
        case "": return nil
        case "apple_pay": self = .applePay
        case "link": self = .link
        default: self = .stripeId(rawValue)
        }
    }
}
