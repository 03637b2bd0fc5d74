/// The built-in processor: Stripe's documented test numbers and tokens (declines, 3D Secure,
/// funding, bank outcomes), with no network behind it. Its reference is the instrument's test
/// behaviour, so it keeps nothing that identifies the number.
public struct TestProcessor: Processor {
    public init() {}

    public func enroll(_ card: CardNumber, cvc: String?) -> Enrollment {
        let known = TestInstruments.cards[card.digits]
        let behavior = known?.behavior ?? .succeeds
        let cvcCheck: String? = cvc == nil ? nil : (behavior == .cvcCheckFails ? "fail" : "pass")
        return Enrollment(
            reference: "card:" + behavior.rawValue, funding: known?.funding ?? "unknown",
            country: known?.country, cvcCheck: cvcCheck, cardNetworks: known?.networks
        )
    }

    public func enroll(_ account: USBankAccountNumber) -> Enrollment {
        let isTestBank = account.routingNumber == TestInstruments.testRoutingNumber
        let behavior = isTestBank ? TestInstruments.usBankAccounts[account.accountNumber] ?? .succeeds : .succeeds
        return Enrollment(
            reference: "us_bank_account:" + behavior.rawValue, country: "US",
            bankName: isTestBank ? "STRIPE TEST BANK" : nil
        )
    }

    public func enroll(_ iban: IBAN) -> Enrollment {
        let fails = TestInstruments.failingIBANs.contains(iban.normalized)
        return Enrollment(reference: "sepa_debit:" + (fails ? "fails" : "succeeds"), country: iban.country)
    }

    public func decide(reference: String, type: PaymentMethodType, at moment: ProcessorMoment) async -> ProcessorDecision {
        let behavior = reference.split(separator: ":", maxSplits: 1).last.map(String.init) ?? ""
        switch type {
        case .card:
            return cardDecision(TestInstruments.CardBehavior(rawValue: behavior) ?? .succeeds, at: moment)
        case .usBankAccount:
            switch TestInstruments.BankBehavior(rawValue: behavior) {
            case .accountClosed: return .unusable(reason: "account_closed", message: "The bank account has been closed.")
            case .noAccount: return .unusable(reason: "no_account", message: "The bank account could not be located.")
            case .succeeds, nil: return .approved
            }
        case .sepaDebit:
            return behavior == "fails"
                ? .unusable(reason: "debit_not_authorized", message: "The bank refused the mandate for this account.")
                : .approved
        }
    }

    public func verifyMicrodeposits(_ proof: MicrodepositProof) async -> MicrodepositVerdict {
        TestInstruments.microdepositVerdicts[proof] ?? .mismatch
    }

    private func cardDecision(_ behavior: TestInstruments.CardBehavior, at moment: ProcessorMoment) -> ProcessorDecision {
        switch behavior {
        case .succeeds, .chargeFailsLater, .cvcCheckFails:
            return .approved
        case .requiresAuthenticationOnSetup, .requiresAuthenticationAlways, .requiresAuthenticationOnSession:
            // A card check on attach needs no authentication; saving it through a setup intent does.
            return moment == .setup ? .requiresAuthentication : .approved
        case .genericDecline:
            return .declined(code: "card_declined", declineCode: "generic_decline", message: "Your card was declined.")
        case .insufficientFunds:
            return .declined(code: "card_declined", declineCode: "insufficient_funds", message: "Your card has insufficient funds.")
        case .lostCard:
            return .declined(code: "card_declined", declineCode: "lost_card", message: "Your card was declined.")
        case .stolenCard:
            return .declined(code: "card_declined", declineCode: "stolen_card", message: "Your card was declined.")
        case .expiredCard:
            return .declined(code: "expired_card", declineCode: "expired_card", message: "Your card has expired.")
        case .incorrectCVC:
            return .declined(code: "incorrect_cvc", declineCode: "incorrect_cvc", message: "Your card's security code is incorrect.")
        case .processingError:
            return .declined(
                code: "processing_error", declineCode: "processing_error",
                message: "An error occurred while processing your card. Try again in a little bit."
            )
        case .velocityExceeded:
            return .declined(
                code: "card_declined", declineCode: "card_velocity_exceeded",
                message: "Your card was declined for making repeated attempts too frequently or exceeding its amount limit."
            )
        }
    }
}
