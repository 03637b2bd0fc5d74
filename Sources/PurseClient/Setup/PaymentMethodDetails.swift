/// Details a customer typed into the sheet for a new payment method. They go straight to Purse
/// with the publishable key (in a setup intent's confirmation) and never to the app's backend;
/// Purse keeps no card number, CVC, account number or IBAN.
public enum PaymentMethodDetails: Sendable, Hashable {
    /// A card: its number (spaces and dashes allowed), expiry and CVC.
    case card(number: String, expMonth: Int, expYear: Int, cvc: String?)
    /// A US bank account entered by hand (Purse provides no Financial Connections).
    /// `accountHolderType` is `individual` or `company`; `accountType` `checking` or `savings`.
    case usBankAccount(routingNumber: String, accountNumber: String, accountHolderType: String, accountType: String)
    /// A SEPA Direct Debit account, by IBAN.
    case sepaDebit(iban: String)

    /// The payment method type: `card`, `us_bank_account` or `sepa_debit`.
    public var type: String {
        switch self {
        case .card: "card"
        case .usBankAccount: "us_bank_account"
        case .sepaDebit: "sepa_debit"
        }
    }

    /// Whether saving it records a mandate (bank debits do).
    var needsMandate: Bool {
        switch self {
        case .card: false
        case .usBankAccount, .sepaDebit: true
        }
    }

    /// The type's own hash: `card[number]=...`, `sepa_debit[iban]=...`.
    var form: FormValue {
        switch self {
        case .card(let number, let expMonth, let expYear, let cvc):
            var card: FormValue = [
                "number": .string(number), "exp_month": .string(String(expMonth)), "exp_year": .string(String(expYear)),
            ]
            card.set("cvc", cvc.map(FormValue.string))
            return card
        case .usBankAccount(let routingNumber, let accountNumber, let accountHolderType, let accountType):
            return [
                "routing_number": .string(routingNumber), "account_number": .string(accountNumber),
                "account_holder_type": .string(accountHolderType), "account_type": .string(accountType),
            ]
        case .sepaDebit(let iban):
            return ["iban": .string(iban)]
        }
    }
}
