/// Stripe's documented test cards, bank accounts, IBANs and tokens (stripe-reference §10): what
/// each is, and how it behaves.
public enum TestInstruments {
    /// How a test card behaves when attached or set up.
    public enum CardBehavior: String, Sendable {
        case succeeds
        case requiresAuthenticationOnSetup = "3ds_setup"
        case requiresAuthenticationAlways = "3ds_always"
        case requiresAuthenticationOnSession = "3ds_on_session"
        case chargeFailsLater = "charge_fails"
        case cvcCheckFails = "cvc_fails"
        case genericDecline = "decline_generic"
        case insufficientFunds = "decline_insufficient_funds"
        case lostCard = "decline_lost_card"
        case stolenCard = "decline_stolen_card"
        case expiredCard = "decline_expired_card"
        case incorrectCVC = "decline_incorrect_cvc"
        case processingError = "decline_processing_error"
        case velocityExceeded = "decline_velocity_exceeded"
    }

    public struct Card: Sendable {
        public let number: String
        public let funding: String
        public let country: String?
        public let behavior: CardBehavior
        /// The networks of a co-badged card (its local network first), nil for a card that runs
        /// on its brand's network only.
        public let networks: [String]?
    }

    /// The test card table; numbers not in it succeed with funding `unknown`.
    public static let cards: [String: Card] = {
        let rows: [(String, String, String?, CardBehavior)] = [
            ("4242424242424242", "credit", "US", .succeeds),
            ("4000056655665556", "debit", "US", .succeeds),
            ("5555555555554444", "credit", "US", .succeeds),
            ("2223003122003222", "credit", "US", .succeeds),
            ("5200828282828210", "debit", "US", .succeeds),
            ("5105105105105100", "prepaid", "US", .succeeds),
            ("378282246310005", "credit", "US", .succeeds),
            ("371449635398431", "credit", "US", .succeeds),
            ("6011111111111117", "credit", "US", .succeeds),
            ("6011000990139424", "credit", "US", .succeeds),
            ("3056930009020004", "credit", "US", .succeeds),
            ("36227206271667", "credit", "US", .succeeds),
            ("3566002020360505", "credit", "JP", .succeeds),
            ("6200000000000005", "credit", "CN", .succeeds),
            ("4000002500003155", "credit", "US", .requiresAuthenticationOnSetup),
            ("4000002760003184", "credit", "US", .requiresAuthenticationAlways),
            ("4000003800000446", "credit", "US", .requiresAuthenticationOnSession),
            ("4000000000000002", "credit", "US", .genericDecline),
            ("4000000000009995", "credit", "US", .insufficientFunds),
            ("4000000000009987", "credit", "US", .lostCard),
            ("4000000000009979", "credit", "US", .stolenCard),
            ("4000000000000069", "credit", "US", .expiredCard),
            ("4000000000000127", "credit", "US", .incorrectCVC),
            ("4000000000000119", "credit", "US", .processingError),
            ("4000000000006975", "credit", "US", .velocityExceeded),
            ("4000000000000101", "credit", "US", .cvcCheckFails),
            ("4000000000000341", "credit", "US", .chargeFailsLater),
        ]
        // Co-badged: Cartes Bancaires with Visa, and with Mastercard (Stripe's card brand choice test cards).
        let coBadged: [(String, [String])] = [
            ("4000002500001001", ["cartes_bancaires", "visa"]),
            ("5555552500001001", ["cartes_bancaires", "mastercard"]),
        ]
        return Dictionary(
            uniqueKeysWithValues: rows.map { ($0.0, Card(number: $0.0, funding: $0.1, country: $0.2, behavior: $0.3, networks: nil)) }
                + coBadged.map { ($0.0, Card(number: $0.0, funding: "credit", country: "FR", behavior: .succeeds, networks: $0.1)) }
        )
    }()

    /// Stripe's test microdeposits: these amounts or codes verify, exceed the attempts or time
    /// out; any other reading is a mismatch.
    public static let microdepositVerdicts: [MicrodepositProof: MicrodepositVerdict] = [
        .amounts(32, 45): .verified, .descriptorCode("SM11AA"): .verified,
        .amounts(10, 11): .attemptsExceeded, .descriptorCode("SM33CC"): .attemptsExceeded,
        .amounts(40, 41): .timedOut, .descriptorCode("SM44DD"): .timedOut,
    ]

    /// `pm_card_*` and `tok_*` names for test cards, as `attach`, `confirm` and `card[token]` take them.
    public static let cardTokens: [String: String] = {
        let names: [(String, String)] = [
            ("visa", "4242424242424242"), ("visa_debit", "4000056655665556"), ("mastercard", "5555555555554444"),
            ("mastercard_debit", "5200828282828210"), ("mastercard_prepaid", "5105105105105100"),
            ("amex", "378282246310005"), ("discover", "6011111111111117"), ("diners", "3056930009020004"),
            ("jcb", "3566002020360505"), ("unionpay", "6200000000000005"),
            ("authenticationRequiredOnSetup", "4000002500003155"), ("authenticationRequired", "4000002760003184"),
            ("authenticationRequiredSetupForOffSession", "4000003800000446"),
            ("chargeDeclined", "4000000000000002"), ("chargeDeclinedInsufficientFunds", "4000000000009995"),
            ("chargeDeclinedLostCard", "4000000000009987"), ("chargeDeclinedStolenCard", "4000000000009979"),
            ("chargeDeclinedExpiredCard", "4000000000000069"), ("chargeDeclinedIncorrectCvc", "4000000000000127"),
            ("chargeDeclinedProcessingError", "4000000000000119"), ("chargeDeclinedVelocityLimitExceeded", "4000000000006975"),
            ("cvcCheckFail", "4000000000000101"), ("chargeCustomerFail", "4000000000000341"),
        ]
        var tokens: [String: String] = [:]
        for (name, number) in names {
            tokens["pm_card_\(name)"] = number
            tokens["tok_\(name)"] = number
        }
        return tokens
    }()

    /// How a test US bank account behaves when set up.
    public enum BankBehavior: String, Sendable {
        case succeeds
        case accountClosed = "account_closed"
        case noAccount = "no_account"
    }

    /// The ACH test table (routing 110000000); accounts not in it succeed.
    public static let usBankAccounts: [String: BankBehavior] = [
        "000123456789": .succeeds, "000111111113": .accountClosed, "000111111116": .noAccount,
        "000222222227": .succeeds, "000333333335": .succeeds, "000444444440": .succeeds,
        "000666666661": .succeeds, "000555555559": .succeeds, "000000000009": .succeeds,
    ]

    public static let testRoutingNumber = "110000000"

    /// `pm_usBankAccount_*` tokens: the account number each stands for.
    public static let usBankAccountTokens: [String: String] = [
        "pm_usBankAccount_success": "000123456789", "pm_usBankAccount_accountClosed": "000111111113",
        "pm_usBankAccount_noAccount": "000111111116", "pm_usBankAccount_insufficientFunds": "000222222227",
        "pm_usBankAccount_debitNotAuthorized": "000333333335", "pm_usBankAccount_invalidCurrency": "000444444440",
        "pm_usBankAccount_failMicrodeposits": "000666666661", "pm_usBankAccount_dispute": "000555555559",
        "pm_usBankAccount_processing": "000000000009",
    ]

    /// The SEPA test IBANs whose debits fail: Purse refuses them at setup.
    public static let failingIBANs: Set<String> = [
        "AT861904300235473202", "DE62370400440532013001", "AT051904300235473205", "DE78370400440532013004",
    ]

    /// `pm_sepaDebit_*` style tokens for the SEPA test IBANs.
    public static let sepaDebitTokens: [String: String] = [
        "pm_sepaDebit_success": "DE89370400440532013000", "pm_sepaDebit_fail": "DE62370400440532013001",
    ]
}
