/// Decides whether a card or bank account is accepted, where a real card network would plug in.
///
/// Purse never keeps card numbers, so at enrolment the processor turns entered details into a
/// `reference` (a network token, say) plus what it knows of the instrument; later decisions get
/// the reference back.
public protocol Processor: Sendable {
    func enroll(_ card: CardNumber, cvc: String?) -> Enrollment
    func enroll(_ account: USBankAccountNumber) -> Enrollment
    func enroll(_ iban: IBAN) -> Enrollment
    /// Whether a saved instrument is accepted at `moment`.
    func decide(reference: String, type: PaymentMethodType, at moment: ProcessorMoment) async -> ProcessorDecision
    /// What the bank says of the microdeposits the customer read on their statement.
    func verifyMicrodeposits(_ proof: MicrodepositProof) async -> MicrodepositVerdict
}

/// What the processor keeps of an instrument and tells about it.
public struct Enrollment: Sendable, Equatable {
    /// The processor's handle on the instrument, stored with the payment method.
    public var reference: String
    /// `credit`, `debit`, `prepaid` or `unknown` (cards).
    public var funding: String
    /// The issuing country, when known.
    public var country: String?
    /// The bank's name, when known (bank accounts).
    public var bankName: String?
    /// The outcome of the CVC check, when a CVC was given (cards).
    public var cvcCheck: String?
    /// The networks a card runs on, when more than its brand's (a co-badged card).
    public var cardNetworks: [String]?

    public init(
        reference: String, funding: String = "unknown", country: String? = nil, bankName: String? = nil, cvcCheck: String? = nil,
        cardNetworks: [String]? = nil
    ) {
        self.reference = reference
        self.funding = funding
        self.country = country
        self.bankName = bankName
        self.cvcCheck = cvcCheck
        self.cardNetworks = cardNetworks
    }
}

/// When a decision is asked for.
public enum ProcessorMoment: Sendable, Equatable {
    /// `POST /v1/payment_methods/{id}/attach`: a card check.
    case attach
    /// A setup intent's confirmation.
    case setup
}

public enum ProcessorDecision: Sendable, Equatable {
    case approved
    /// A card refused: Stripe's `code` (`card_declined`, `expired_card`, ...) and `decline_code`.
    case declined(code: String, declineCode: String, message: String)
    /// The card holder must authenticate (3D Secure) before the card can be saved.
    case requiresAuthentication
    /// A bank account that cannot be debited (closed, no such account, ...).
    case unusable(reason: String, message: String)
}

/// What the customer read on their statement: the two amounts (cents) or the descriptor code.
public enum MicrodepositProof: Sendable, Hashable {
    case amounts(Int, Int)
    case descriptorCode(String)
}

public enum MicrodepositVerdict: Sendable, Equatable {
    case verified
    /// Not what was sent: the customer may try again.
    case mismatch
    /// The bank stops accepting attempts for this account.
    case attemptsExceeded
    /// The deposits were not verified in time.
    case timedOut
}

/// The payment method types Purse saves.
public enum PaymentMethodType: String, Sendable, CaseIterable, ParameterEnum {
    case card
    case usBankAccount = "us_bank_account"
    case sepaDebit = "sepa_debit"
}
