import PurseModels

/// `usage`.
public enum SetupIntentUsage: String, Sendable, CaseIterable, ParameterEnum {
    case onSession = "on_session"
    case offSession = "off_session"
}

/// `cancellation_reason`.
public enum CancellationReason: String, Sendable, CaseIterable, ParameterEnum {
    case abandoned
    case requestedByCustomer = "requested_by_customer"
    case duplicate
}

/// `mandate_data[customer_acceptance]`, as stripe-ios and servers send it for bank debits.
public struct MandateDataParameters: Decodable, Sendable, Equatable {
    public var customerAcceptance: CustomerAcceptance

    enum CodingKeys: String, CodingKey { case customerAcceptance = "customer_acceptance" }

    public struct CustomerAcceptance: Decodable, Sendable, Equatable {
        public enum Kind: String, Sendable, CaseIterable, ParameterEnum { case online, offline }

        public var type: Kind
        public var acceptedAt: Int?
        public var online: Online?
        public var offline: Offline?

        enum CodingKeys: String, CodingKey {
            case type
            case acceptedAt = "accepted_at"
            case online, offline
        }
    }

    public struct Online: Decodable, Sendable, Equatable {
        public var ipAddress: String?
        public var userAgent: String?
        public var inferFromClient: Bool?

        enum CodingKeys: String, CodingKey {
            case ipAddress = "ip_address"
            case userAgent = "user_agent"
            case inferFromClient = "infer_from_client"
        }
    }

    public struct Offline: Decodable, Sendable, Equatable {}

    /// What the setup intent keeps of the mandate.
    func record(id: String, now: Int) -> JSONValue {
        var acceptance = JSONObject([
            ("type", .string(customerAcceptance.type.rawValue)), ("accepted_at", .int(customerAcceptance.acceptedAt ?? now)),
        ])
        if let online = customerAcceptance.online {
            acceptance["online"] = [
                "ip_address": online.ipAddress.map(JSONValue.string) ?? .null,
                "user_agent": online.userAgent.map(JSONValue.string) ?? .null,
            ]
        }
        return ["id": .string(id), "customer_acceptance": .object(acceptance)]
    }
}

/// `payment_method_options[...]` on a setup intent's create, update and confirm: how a card is
/// authenticated and on which network, how a US bank account is verified and what Financial
/// Connections asks for. ``SetupIntentOptions`` keeps them.
public struct PaymentMethodOptionsParameters: Decodable, Sendable {
    public var card: CardOptions?
    public var usBankAccount: USBankAccountOptions?

    public init(card: CardOptions? = nil, usBankAccount: USBankAccountOptions? = nil) {
        self.card = card
        self.usBankAccount = usBankAccount
    }

    enum CodingKeys: String, CodingKey {
        case card
        case usBankAccount = "us_bank_account"
    }

    public struct CardOptions: Decodable, Sendable {
        public var requestThreeDSecure: SetupIntentOptions.ThreeDSecure?
        /// Only at a confirmation, as Stripe's.
        public var network: SetupIntentOptions.CardNetwork?

        enum CodingKeys: String, CodingKey {
            case requestThreeDSecure = "request_three_d_secure"
            case network
        }
    }

    public struct USBankAccountOptions: Decodable, Sendable {
        public var verificationMethod: SetupIntentOptions.VerificationMethod?
        public var financialConnections: FinancialConnections?

        enum CodingKeys: String, CodingKey {
            case verificationMethod = "verification_method"
            case financialConnections = "financial_connections"
        }
    }

    public struct FinancialConnections: Decodable, Sendable {
        public var permissions: [FinancialConnectionsLink.Permission]?
        public var prefetch: [FinancialConnectionsLink.Prefetch]?
        public var returnURL: String?
        public var filters: Filters?

        enum CodingKeys: String, CodingKey {
            case permissions, prefetch, filters
            case returnURL = "return_url"
        }
    }

    public struct Filters: Decodable, Sendable {
        public var accountSubcategories: [FinancialConnectionsLink.AccountSubcategory]?

        enum CodingKeys: String, CodingKey { case accountSubcategories = "account_subcategories" }
    }
}

/// `automatic_payment_methods[...]`: enabled means every type Purse saves.
public struct AutomaticPaymentMethodsParameters: Decodable, Sendable {
    public var enabled: Bool
    public var allowRedirects: String?

    enum CodingKeys: String, CodingKey {
        case enabled
        case allowRedirects = "allow_redirects"
    }
}

/// `POST /v1/setup_intents`.
public struct SetupIntentCreateParameters: Decodable, Sendable {
    public var customer: String?
    public var paymentMethod: String?
    public var paymentMethodData: PaymentMethodCreateParameters?
    public var paymentMethodTypes: [PaymentMethodType]?
    public var automaticPaymentMethods: AutomaticPaymentMethodsParameters?
    public var paymentMethodOptions: PaymentMethodOptionsParameters?
    public var usage: SetupIntentUsage?
    public var confirm: Bool?
    public var returnURL: String?
    public var description: String?
    public var metadata: MetadataParameter?
    public var mandateData: MandateDataParameters?
    public var useStripeSDK: Bool?
    /// Sheet settings the confirmation checks against (an id or `default`).
    public var customerSheetSettings: String?

    public init() {}

    enum CodingKeys: String, CodingKey {
        case customerSheetSettings = "customer_sheet_settings"
        case customer
        case paymentMethod = "payment_method"
        case paymentMethodData = "payment_method_data"
        case paymentMethodTypes = "payment_method_types"
        case automaticPaymentMethods = "automatic_payment_methods"
        case paymentMethodOptions = "payment_method_options"
        case usage, confirm
        case returnURL = "return_url"
        case description, metadata
        case mandateData = "mandate_data"
        case useStripeSDK = "use_stripe_sdk"
    }
}

/// `POST /v1/setup_intents/{id}`: only what is sent changes.
public struct SetupIntentUpdateParameters: Decodable, Sendable {
    public var customer: Patch<String>?
    public var paymentMethod: Patch<String>?
    public var paymentMethodData: PaymentMethodCreateParameters?
    public var paymentMethodTypes: [PaymentMethodType]?
    public var paymentMethodOptions: PaymentMethodOptionsParameters?
    public var description: Patch<String>?
    public var metadata: Patch<MetadataParameter>?

    enum CodingKeys: String, CodingKey {
        case customer
        case paymentMethod = "payment_method"
        case paymentMethodData = "payment_method_data"
        case paymentMethodTypes = "payment_method_types"
        case paymentMethodOptions = "payment_method_options"
        case description, metadata
    }
}

/// `POST /v1/setup_intents/{id}/confirm`.
public struct SetupIntentConfirmParameters: Decodable, Sendable {
    /// Required with a publishable key.
    public var clientSecret: String?
    public var paymentMethod: String?
    public var paymentMethodData: PaymentMethodCreateParameters?
    public var paymentMethodOptions: PaymentMethodOptionsParameters?
    public var returnURL: String?
    public var mandateData: MandateDataParameters?
    public var useStripeSDK: Bool?

    public init() {}

    enum CodingKeys: String, CodingKey {
        case clientSecret = "client_secret"
        case paymentMethod = "payment_method"
        case paymentMethodData = "payment_method_data"
        case paymentMethodOptions = "payment_method_options"
        case returnURL = "return_url"
        case mandateData = "mandate_data"
        case useStripeSDK = "use_stripe_sdk"
    }
}

/// `POST /v1/setup_intents/{id}/cancel`.
public struct SetupIntentCancelParameters: Decodable, Sendable {
    public var cancellationReason: CancellationReason?

    enum CodingKeys: String, CodingKey { case cancellationReason = "cancellation_reason" }
}

/// `GET /v1/setup_intents/{id}`: the client secret, for a publishable key.
public struct SetupIntentRetrieveParameters: Decodable, Sendable {
    public var clientSecret: String?

    enum CodingKeys: String, CodingKey { case clientSecret = "client_secret" }
}

/// `GET /v1/setup_intents`.
public struct SetupIntentListParameters: Decodable, Sendable, PaginatedParameters {
    public var customer: String?
    public var paymentMethod: String?
    public var created: RangeFilter?
    public var limit: Int?
    public var startingAfter: String?
    public var endingBefore: String?

    enum CodingKeys: String, CodingKey {
        case customer
        case paymentMethod = "payment_method"
        case created, limit
        case startingAfter = "starting_after"
        case endingBefore = "ending_before"
    }
}

/// `POST /v1/setup_intents/{id}/verify_microdeposits`, and the hosted verification page's form.
public struct SetupIntentVerifyMicrodepositsParameters: Decodable, Sendable {
    /// Required with a publishable key.
    public var clientSecret: String?
    /// The two deposits, in cents.
    public var amounts: [Int]?
    /// The code in the statement descriptor of the one deposit (`SM` and four characters).
    public var descriptorCode: String?

    public init(descriptorCode: String?) {
        self.descriptorCode = descriptorCode
    }

    enum CodingKeys: String, CodingKey {
        case clientSecret = "client_secret"
        case amounts
        case descriptorCode = "descriptor_code"
    }

    /// What the customer read: the amounts or the code, never both.
    public func proof() throws -> MicrodepositProof {
        switch (amounts, descriptorCode) {
        case (nil, nil):
            throw PurseError(
                .invalidRequest, code: "parameter_missing", message: "Give the deposits' amounts or their descriptor_code.",
                param: "descriptor_code"
            )
        case (.some, .some):
            throw PurseError.invalidParameter("descriptor_code", "Give the deposits' amounts or their descriptor_code, not both.")
        case (let amounts?, nil):
            guard amounts.count == 2, amounts.allSatisfy({ $0 > 0 }) else {
                throw PurseError(
                    .invalidRequest, code: "payment_method_microdeposit_verification_amounts_invalid",
                    message: "Give exactly two amounts, each a positive number of cents.", param: "amounts"
                )
            }
            return .amounts(amounts[0], amounts[1])
        case (nil, let code?):
            // Stripe's codes are six characters starting with SM; anything else is a typo, not a reading.
            let trimmed = code.filter { !$0.isWhitespace }.uppercased()
            guard trimmed.count == 6, trimmed.hasPrefix("SM") else {
                throw PurseError.invalidParameter(
                    "descriptor_code", "The descriptor code is the six characters starting with SM in the deposit's statement descriptor."
                )
            }
            return .descriptorCode(trimmed)
        }
    }
}
