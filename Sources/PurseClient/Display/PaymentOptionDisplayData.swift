public import PurseModels

/// How a sheet shows a payment option (spec §7): a label (`•••• 4242` for a card, `••••6789`
/// for a bank account, without the space on purpose, as stripe-ios writes them; `Apple Pay`,
/// `Link`) and, for cards, the brand to pick an image by. stripe-ios also carries a `UIImage`;
/// Purse's client leaves images to the app, since it runs where UIKit does not.
public struct PaymentOptionDisplayData: Sendable, Hashable {
    /// `•••• 4242`, `••••6789`, `Apple Pay` or `Link`.
    public let label: String
    /// A card's brand as Stripe names it (`visa`, `mastercard`, `amex`, ...), or nil.
    public let brand: String?
    /// A name to show beside the label: the card brand's (`Visa`, `American Express`), the bank's,
    /// `SEPA Debit`, or nil.
    public let title: String?

    /// Creates display data.
    public init(label: String, brand: String?, title: String?) {
        self.label = label
        self.brand = brand
        self.title = title
    }

    /// Apple Pay's.
    public static let applePay = PaymentOptionDisplayData(label: "Apple Pay", brand: nil, title: nil)
    /// Link's.
    public static let link = PaymentOptionDisplayData(label: "Link", brand: nil, title: nil)

    /// A saved payment method's.
    public init(_ paymentMethod: PaymentMethod) {
        if let card = paymentMethod.card {
            self.init(label: "•••• \(card.last4)", brand: card.brand, title: Self.brandNames[card.brand] ?? card.brand.capitalized)
        } else if let bank = paymentMethod.usBankAccount {
            self.init(label: "••••\(bank.last4)", brand: nil, title: bank.bankName ?? "Bank account")
        } else if let sepa = paymentMethod.sepaDebit {
            self.init(label: "••••\(sepa.last4)", brand: nil, title: "SEPA Debit")
        } else {
            self.init(label: paymentMethod.type, brand: nil, title: nil)
        }
    }

    /// Stripe's card brands as people write them.
    private static let brandNames = [
        "amex": "American Express", "cartes_bancaires": "Cartes Bancaires", "diners": "Diners Club",
        "discover": "Discover", "eftpos_au": "eftpos Australia", "jcb": "JCB", "mastercard": "Mastercard",
        "unionpay": "UnionPay", "visa": "Visa",
    ]
}
