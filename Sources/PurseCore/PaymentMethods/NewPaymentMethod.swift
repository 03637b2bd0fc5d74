public import PurseModels

/// A payment method made from entered details, checked and enrolled, not yet stored.
public struct NewPaymentMethod: Sendable {
    public var model: PaymentMethod
    /// The processor's reference for later decisions.
    public var processorReference: String
    public var type: PaymentMethodType
}

/// Builds payment methods from what a request entered: validates cards (Luhn, brand length,
/// expiry, CVC), US bank accounts (ABA checksum, account length) and IBANs (country length,
/// mod-97), enrols them with the processor and fingerprints them. The numbers end here.
public struct PaymentMethodFactory: Sendable {
    let processor: any Processor
    let fingerprinter: Fingerprinter

    public init(processor: any Processor, fingerprinter: Fingerprinter) {
        self.processor = processor
        self.fingerprinter = fingerprinter
    }

    /// `prefix` is where the parameters sit in the request (`payment_method_data` on confirm),
    /// for the `param` of errors. `linked` is the Financial Connections account the parameters
    /// name, found by ``FinancialConnectionsService/linkedAccount(in:prefix:setupIntent:caller:database:)``.
    public func make(
        _ params: PaymentMethodCreateParameters,
        account: String,
        prefix: String? = nil,
        linked: LinkedBankAccount? = nil,
        now: Int = Clock.now
    ) throws -> NewPaymentMethod {
        let name = { (path: String) in ParameterPath.nested(path, under: prefix) }
        let billing = try (params.billingDetails ?? BillingDetailsParameters()).billingDetails(param: name("billing_details"))
        let metadata = try MetadataRules.new(params.metadata, param: name("metadata"))
        let redisplay = (params.allowRedisplay ?? .unspecified).rawValue
        let others: [(present: Bool, param: String)] = [
            (params.card != nil && params.type != .card, "card"),
            (params.usBankAccount != nil && params.type != .usBankAccount, "us_bank_account"),
            (params.sepaDebit != nil && params.type != .sepaDebit, "sepa_debit"),
        ]
        if let stray = others.first(where: \.present) {
            throw PurseError.invalidParameter(
                name(stray.param), "\(name(stray.param)) cannot be given for a payment method of type \(params.type.rawValue)."
            )
        }
        var model = PaymentMethod(
            id: ObjectID.make(.paymentMethod), allowRedisplay: redisplay, billingDetails: billing, created: now,
            customer: nil, metadata: metadata, type: params.type.rawValue
        )
        let reference: String
        switch params.type {
        case .card:
            guard let card = params.card else { throw PurseError.missingParameter(name("card")) }
            (model.card, reference) = try cardDetails(card, billing: billing, account: account, name: name, now: now)
        case .usBankAccount:
            guard let bank = params.usBankAccount else { throw PurseError.missingParameter(name("us_bank_account")) }
            if let linked {
                (model.usBankAccount, reference) = Self.bankDetails(linked, holderType: bank.accountHolderType)
            } else {
                (model.usBankAccount, reference) = try bankDetails(bank, account: account, name: name)
            }
        case .sepaDebit:
            guard let sepa = params.sepaDebit else { throw PurseError.missingParameter(name("sepa_debit")) }
            (model.sepaDebit, reference) = try sepaDetails(sepa, account: account, name: name)
        }
        return NewPaymentMethod(model: model, processorReference: reference, type: params.type)
    }

    /// A payment method for a test token used as an id (`pm_card_visa`, `pm_usBankAccount_success`),
    /// or nil when `token` is not one.
    public func make(token: String, account: String, now: Int = Clock.now) throws -> NewPaymentMethod? {
        if TestInstruments.cardTokens[token] != nil {
            var params = PaymentMethodCreateParameters(type: .card)
            params.card = CardParameters(token: token)
            return try make(params, account: account, now: now)
        }
        if let accountNumber = TestInstruments.usBankAccountTokens[token] {
            var params = PaymentMethodCreateParameters(type: .usBankAccount)
            params.usBankAccount = USBankAccountParameters(
                accountHolderType: .individual, accountNumber: accountNumber, accountType: .checking,
                routingNumber: TestInstruments.testRoutingNumber
            )
            params.billingDetails = BillingDetailsParameters(name: "Jenny Rosen")
            return try make(params, account: account, now: now)
        }
        if let iban = TestInstruments.sepaDebitTokens[token] {
            var params = PaymentMethodCreateParameters(type: .sepaDebit)
            params.sepaDebit = SepaDebitParameters(iban: iban)
            params.billingDetails = BillingDetailsParameters(email: "jenny.rosen@example.com", name: "Jenny Rosen")
            return try make(params, account: account, now: now)
        }
        return nil
    }

    // MARK: - Types

    private func cardDetails(
        _ card: CardParameters, billing: BillingDetails, account: String, name: (String) -> String, now: Int
    ) throws -> (CardDetails, String) {
        let numberText: String
        var expMonth = card.expMonth
        var expYear = card.expYear
        if let token = card.token {
            guard card.number == nil, let number = TestInstruments.cardTokens[token] else {
                throw PurseError.invalidParameter(name("card[token]"), "No such token: '\(token)'", code: "resource_missing")
            }
            numberText = number
            expMonth = expMonth ?? 12
            expYear = expYear ?? (Calendar.year(of: now) + 3)
        } else {
            guard let number = card.number else { throw PurseError.missingParameter(name("card[number]")) }
            numberText = number
        }
        guard let number = CardNumber(numberText) else {
            throw Self.cardError("incorrect_number", "Your card number is incorrect.", param: name("card[number]"))
        }
        guard let month = expMonth else { throw PurseError.missingParameter(name("card[exp_month]")) }
        guard var year = expYear else { throw PurseError.missingParameter(name("card[exp_year]")) }
        let (validMonth, validYear) = try Self.checkedExpiry(month: month, year: &year, now: now, name: name)
        if let cvc = card.cvc {
            guard cvc.count == number.brand.cvcLength, cvc.allSatisfy(\.isASCIIDigit) else {
                throw Self.cardError("invalid_cvc", "Your card's security code is invalid.", param: name("card[cvc]"))
            }
        }
        let enrollment = processor.enroll(number, cvc: card.cvc)
        let networks = CardNetworks.networks(
            available: enrollment.cardNetworks ?? [number.brand.rawValue], preferred: card.networks?.preferred
        )
        let details = CardDetails(
            brand: number.brand.rawValue,
            checks: CardDetails.Checks(
                addressLine1Check: billing.address.line1 == nil ? nil : "pass",
                addressPostalCodeCheck: billing.address.postalCode == nil ? nil : "pass",
                cvcCheck: enrollment.cvcCheck
            ),
            country: enrollment.country,
            displayBrand: CardNetworks.displayBrand(brand: number.brand, networks: networks),
            expMonth: validMonth,
            expYear: validYear,
            fingerprint: fingerprinter.fingerprint(of: number, account: account),
            funding: enrollment.funding,
            last4: number.last4,
            networks: networks
        )
        return (details, enrollment.reference)
    }

    /// Checks an expiry (two-digit years count from 2000): a month 1 to 12, not in the past, at
    /// most 50 years ahead.
    static func checkedExpiry(month: Int, year: inout Int, now: Int, name: (String) -> String) throws -> (Int, Int) {
        guard (1...12).contains(month) else {
            throw cardError("invalid_expiry_month", "Your card's expiration month is invalid.", param: name("card[exp_month]"))
        }
        if (0...99).contains(year) { year += 2000 }
        let (currentYear, currentMonth) = (Calendar.year(of: now), Calendar.month(of: now))
        guard year >= currentYear, year <= currentYear + 50 else {
            throw cardError("invalid_expiry_year", "Your card's expiration year is invalid.", param: name("card[exp_year]"))
        }
        guard year > currentYear || month >= currentMonth else {
            throw cardError("invalid_expiry_month", "Your card's expiration month is invalid.", param: name("card[exp_month]"))
        }
        return (month, year)
    }

    static func cardError(_ code: String, _ message: String, param: String) -> PurseError {
        PurseError(.card, code: code, message: message, param: param)
    }

    private func bankDetails(
        _ bank: USBankAccountParameters, account: String, name: (String) -> String
    ) throws -> (USBankAccountDetails, String) {
        if bank.linkAccountSession != nil || bank.financialConnectionsAccount != nil {
            throw PurseError.invalidParameter(
                name("us_bank_account"), "A linked account (link_account_session, financial_connections_account) cannot be used here."
            )
        }
        guard let routing = bank.routingNumber else { throw PurseError.missingParameter(name("us_bank_account[routing_number]")) }
        guard let accountNumber = bank.accountNumber else {
            throw PurseError.missingParameter(name("us_bank_account[account_number]"))
        }
        guard let holderType = bank.accountHolderType else {
            throw PurseError.missingParameter(name("us_bank_account[account_holder_type]"))
        }
        let number: USBankAccountNumber
        do {
            number = try USBankAccountNumber(routingNumber: routing, accountNumber: accountNumber)
        } catch .routingNumber {
            throw PurseError.invalidParameter(
                name("us_bank_account[routing_number]"), "The routing number is not a valid ABA routing number.",
                code: "routing_number_invalid"
            )
        } catch {
            throw PurseError.invalidParameter(
                name("us_bank_account[account_number]"), "The account number must have 4 to 17 digits.",
                code: "account_number_invalid"
            )
        }
        let enrollment = processor.enroll(number)
        let details = USBankAccountDetails(
            accountHolderType: holderType.rawValue, accountType: (bank.accountType ?? .checking).rawValue,
            bankName: enrollment.bankName, fingerprint: fingerprinter.fingerprint(of: number, account: account),
            last4: number.last4, routingNumber: number.routingNumber
        )
        return (details, enrollment.reference)
    }

    /// A linked account's details: what Financial Connections learnt of it, and its account.
    private static func bankDetails(
        _ linked: LinkedBankAccount, holderType: USBankAccountParameters.AccountHolderType?
    ) -> (USBankAccountDetails, String) {
        var details = USBankAccountDetails(
            accountHolderType: (holderType ?? .individual).rawValue, accountType: linked.subcategory,
            bankName: linked.institutionName, fingerprint: linked.fingerprint, last4: linked.last4,
            routingNumber: linked.routingNumber
        )
        details.financialConnectionsAccount = linked.id
        return (details, linked.processorReference)
    }

    private func sepaDetails(
        _ sepa: SepaDebitParameters, account: String, name: (String) -> String
    ) throws -> (SepaDebitDetails, String) {
        guard let iban = IBAN(sepa.iban) else {
            throw PurseError.invalidParameter(
                name("sepa_debit[iban]"), "The IBAN you entered is invalid.", code: "invalid_bank_account_iban"
            )
        }
        let enrollment = processor.enroll(iban)
        let codes = iban.bankAndBranch
        let details = SepaDebitDetails(
            bankCode: codes.bank, branchCode: codes.branch, country: iban.country,
            fingerprint: fingerprinter.fingerprint(of: iban, account: account), last4: iban.last4
        )
        return (details, enrollment.reference)
    }
}
