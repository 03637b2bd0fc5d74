public import PurseModels

/// `allow_redisplay`.
public enum AllowRedisplay: String, Sendable, CaseIterable, ParameterEnum {
    case always, limited, unspecified
}

/// `card[...]` on create: entered details, or a test token (`tok_visa`, `pm_card_visa`).
public struct CardParameters: Decodable, Sendable {
    public var number: String?
    public var expMonth: Int?
    public var expYear: Int?
    public var cvc: String?
    public var token: String?
    public var networks: NetworksParameters?

    enum CodingKeys: String, CodingKey {
        case number
        case expMonth = "exp_month"
        case expYear = "exp_year"
        case cvc, token, networks
    }

    public struct NetworksParameters: Decodable, Sendable {
        public var preferred: CardNetworks.Preferred?
    }
}

/// `us_bank_account[...]` on create: entered by hand, or an account linked through Financial
/// Connections (its session, or the account itself).
public struct USBankAccountParameters: Decodable, Sendable {
    public var accountHolderType: AccountHolderType?
    public var accountNumber: String?
    public var accountType: AccountType?
    public var routingNumber: String?
    public var linkAccountSession: String?
    public var financialConnectionsAccount: String?

    public init(
        accountHolderType: AccountHolderType? = nil, accountNumber: String? = nil, accountType: AccountType? = nil,
        routingNumber: String? = nil
    ) {
        self.accountHolderType = accountHolderType
        self.accountNumber = accountNumber
        self.accountType = accountType
        self.routingNumber = routingNumber
    }

    enum CodingKeys: String, CodingKey {
        case accountHolderType = "account_holder_type"
        case accountNumber = "account_number"
        case accountType = "account_type"
        case routingNumber = "routing_number"
        case linkAccountSession = "link_account_session"
        case financialConnectionsAccount = "financial_connections_account"
    }

    public enum AccountHolderType: String, Sendable, CaseIterable, ParameterEnum { case individual, company }
    public enum AccountType: String, Sendable, CaseIterable, ParameterEnum { case checking, savings }
}

/// `sepa_debit[iban]`.
public struct SepaDebitParameters: Decodable, Sendable {
    public var iban: String
}

/// `billing_details[...]`.
public struct BillingDetailsParameters: Decodable, Sendable, Equatable {
    public var address: AddressParameters?
    public var email: String?
    public var name: String?
    public var phone: String?

    public init(address: AddressParameters? = nil, email: String? = nil, name: String? = nil, phone: String? = nil) {
        self.address = address
        self.email = email
        self.name = name
        self.phone = phone
    }

    /// The stored billing details, within length limits; `param` names the hash in errors.
    public func billingDetails(param: String) throws -> BillingDetails {
        BillingDetails(
            address: try address?.address(param: "\(param)[address]") ?? Address(),
            email: try BillingFieldRules.email(email, param: "\(param)[email]"),
            name: try BillingFieldRules.name(name, param: "\(param)[name]"),
            phone: try BillingFieldRules.phone(phone, param: "\(param)[phone]")
        )
    }
}

/// `POST /v1/payment_methods` (and `payment_method_data` on confirm).
public struct PaymentMethodCreateParameters: Decodable, Sendable {
    public var type: PaymentMethodType
    public var card: CardParameters?
    public var usBankAccount: USBankAccountParameters?
    public var sepaDebit: SepaDebitParameters?
    public var billingDetails: BillingDetailsParameters?
    public var allowRedisplay: AllowRedisplay?
    public var metadata: MetadataParameter?

    enum CodingKeys: String, CodingKey {
        case type, card
        case usBankAccount = "us_bank_account"
        case sepaDebit = "sepa_debit"
        case billingDetails = "billing_details"
        case allowRedisplay = "allow_redisplay"
        case metadata
    }
}

/// `POST /v1/payment_methods/{id}`: only what is sent changes.
public struct PaymentMethodUpdateParameters: Decodable, Sendable {
    public var allowRedisplay: AllowRedisplay?
    public var billingDetails: BillingDetailsUpdate?
    public var card: CardUpdate?
    public var usBankAccount: USBankAccountUpdate?
    public var metadata: Patch<MetadataParameter>?

    enum CodingKeys: String, CodingKey {
        case allowRedisplay = "allow_redisplay"
        case billingDetails = "billing_details"
        case card
        case usBankAccount = "us_bank_account"
        case metadata
    }

    public struct BillingDetailsUpdate: Decodable, Sendable {
        public var address: Patch<AddressParameters>?
        public var email: Patch<String>?
        public var name: Patch<String>?
        public var phone: Patch<String>?
    }

    public struct CardUpdate: Decodable, Sendable {
        public var expMonth: Int?
        public var expYear: Int?
        public var networks: CardParameters.NetworksParameters?

        enum CodingKeys: String, CodingKey {
            case expMonth = "exp_month"
            case expYear = "exp_year"
            case networks
        }
    }

    public struct USBankAccountUpdate: Decodable, Sendable {
        public var accountHolderType: USBankAccountParameters.AccountHolderType?
        public var accountType: USBankAccountParameters.AccountType?

        enum CodingKeys: String, CodingKey {
            case accountHolderType = "account_holder_type"
            case accountType = "account_type"
        }
    }
}

/// `GET /v1/payment_methods` and `GET /v1/customers/{id}/payment_methods`.
public struct PaymentMethodListParameters: Decodable, Sendable, PaginatedParameters {
    public var customer: String?
    public var type: PaymentMethodType?
    public var allowRedisplay: AllowRedisplay?
    public var limit: Int?
    public var startingAfter: String?
    public var endingBefore: String?

    public init(
        customer: String?, type: PaymentMethodType?, allowRedisplay: AllowRedisplay?, limit: Int?,
        startingAfter: String?, endingBefore: String?
    ) {
        self.customer = customer
        self.type = type
        self.allowRedisplay = allowRedisplay
        self.limit = limit
        self.startingAfter = startingAfter
        self.endingBefore = endingBefore
    }

    enum CodingKeys: String, CodingKey {
        case customer, type
        case allowRedisplay = "allow_redisplay"
        case limit
        case startingAfter = "starting_after"
        case endingBefore = "ending_before"
    }
}

/// `POST /v1/payment_methods/{id}/attach`.
public struct AttachParameters: Decodable, Sendable {
    public var customer: String
}

/// `POST /v1/customers/{id}/selected_payment_option`.
public struct SelectedOptionParameters: Decodable, Sendable {
    /// A payment method id, `apple_pay`, `link`, or empty for none.
    public var option: Patch<String>

    enum CodingKeys: String, CodingKey { case option }
}
