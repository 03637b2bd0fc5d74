/// `payment_method.us_bank_account`: the last four digits, the routing number and a fingerprint.
public struct USBankAccountDetails: Codable, Sendable, Hashable {
    /// `individual` or `company`.
    public var accountHolderType: String?
    /// `checking` or `savings`.
    public var accountType: String?
    public var bankName: String?
    public var financialConnectionsAccount: String?
    public var fingerprint: String
    public var last4: String
    public var networks: Networks
    public var routingNumber: String
    public var statusDetails: String?

    public init(
        accountHolderType: String?, accountType: String?, bankName: String?, fingerprint: String, last4: String,
        routingNumber: String
    ) {
        self.accountHolderType = accountHolderType
        self.accountType = accountType
        self.bankName = bankName
        self.fingerprint = fingerprint
        self.last4 = last4
        self.networks = Networks(preferred: "ach", supported: ["ach"])
        self.routingNumber = routingNumber
    }

    enum CodingKeys: String, CodingKey {
        case accountHolderType = "account_holder_type"
        case accountType = "account_type"
        case bankName = "bank_name"
        case financialConnectionsAccount = "financial_connections_account"
        case fingerprint
        case last4
        case networks
        case routingNumber = "routing_number"
        case statusDetails = "status_details"
    }

    public struct Networks: Codable, Sendable, Hashable {
        public var preferred: String?
        public var supported: [String]
    }
}

/// `payment_method.sepa_debit`: the IBAN's country, bank and branch codes, last four, fingerprint.
public struct SepaDebitDetails: Codable, Sendable, Hashable {
    public var bankCode: String?
    public var branchCode: String?
    public var country: String
    public var fingerprint: String
    public var generatedFrom: GeneratedFrom
    public var last4: String

    public init(bankCode: String?, branchCode: String?, country: String, fingerprint: String, last4: String) {
        self.bankCode = bankCode
        self.branchCode = branchCode
        self.country = country
        self.fingerprint = fingerprint
        self.generatedFrom = GeneratedFrom()
        self.last4 = last4
    }

    enum CodingKeys: String, CodingKey {
        case bankCode = "bank_code"
        case branchCode = "branch_code"
        case country, fingerprint
        case generatedFrom = "generated_from"
        case last4
    }

    public struct GeneratedFrom: Codable, Sendable, Hashable {
        public var charge: String?
        public var setupAttempt: String?

        public init() {}

        enum CodingKeys: String, CodingKey {
            case charge
            case setupAttempt = "setup_attempt"
        }
    }
}
