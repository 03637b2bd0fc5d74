import PurseModels

/// What Financial Connections asks for when it links an account for a setup intent
/// (`payment_method_options[us_bank_account][financial_connections]`): the session made for the
/// intent shows it, and the test bank offers only the account subcategories it allows.
public struct FinancialConnectionsLink: Codable, Sendable, Equatable {
    public enum Permission: String, Codable, Sendable, CaseIterable, ParameterEnum {
        case balances, ownership
        case paymentMethod = "payment_method"
        case transactions
    }

    public enum Prefetch: String, Codable, Sendable, CaseIterable, ParameterEnum { case balances, ownership, transactions }

    public enum AccountSubcategory: String, Codable, Sendable, CaseIterable, ParameterEnum { case checking, savings }

    public var permissions: [Permission] = [.paymentMethod]
    public var prefetch: [Prefetch] = []
    public var returnURL: String?
    /// nil offers every kind of account.
    public var accountSubcategories: [AccountSubcategory]?

    public init() {}

    enum CodingKeys: String, CodingKey {
        case permissions, prefetch
        case returnURL = "return_url"
        case accountSubcategories = "account_subcategories"
    }

    /// Whether an account of `subcategory` (`checking` or `savings`) may be linked.
    public func allows(subcategory: String) -> Bool {
        accountSubcategories?.contains { $0.rawValue == subcategory } ?? true
    }

    /// Takes what a request sends under `prefix`; what it leaves out stays.
    mutating func apply(_ params: PaymentMethodOptionsParameters.FinancialConnections, prefix: String) throws {
        if let requested = params.permissions {
            guard requested.contains(.paymentMethod) else {
                throw PurseError.invalidParameter(
                    "\(prefix)[permissions]", "\(prefix)[permissions] must include `payment_method`: saving the account needs it."
                )
            }
            permissions = requested.distinct
        }
        if let requested = params.prefetch { prefetch = requested.distinct }
        if let url = params.returnURL { returnURL = try ReturnURL.checked(url, param: "\(prefix)[return_url]") }
        if let requested = params.filters?.accountSubcategories {
            guard !requested.isEmpty else {
                throw PurseError.invalidParameter(
                    "\(prefix)[filters][account_subcategories]", "Give at least one account subcategory: checking or savings."
                )
            }
            accountSubcategories = requested.distinct
        }
    }

    /// The `financial_connections` entry of a setup intent's `payment_method_options`
    /// (`return_url` is optional there, not nullable: left out when unset).
    var json: JSONValue {
        var object = JSONObject([
            ("permissions", .array(permissions.map { .string($0.rawValue) })),
            ("prefetch", .array(prefetch.map { .string($0.rawValue) })),
        ])
        if let returnURL { object["return_url"] = .string(returnURL) }
        if let accountSubcategories {
            object["filters"] = ["account_subcategories": .array(accountSubcategories.map { .string($0.rawValue) })]
        }
        return .object(object)
    }
}
