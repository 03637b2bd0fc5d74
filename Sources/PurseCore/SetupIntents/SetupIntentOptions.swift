import PurseModels

/// A setup intent's `payment_method_options`, as stored and honoured: how a card is authenticated
/// and on which network it is saved, how a US bank account is verified and what Financial
/// Connections links it with.
public struct SetupIntentOptions: Codable, Sendable, Equatable {
    /// `any` and `challenge` send every card the processor approves through 3D Secure.
    public enum ThreeDSecure: String, Codable, Sendable, CaseIterable, ParameterEnum {
        case automatic, any, challenge

        /// Whether it asks for 3D Secure at least as often as `other`.
        func isAtLeast(_ other: ThreeDSecure) -> Bool { other == .automatic || self != .automatic }
    }

    public enum CardNetwork: String, Codable, Sendable, CaseIterable, ParameterEnum {
        case amex
        case cartesBancaires = "cartes_bancaires"
        case diners, discover
        case eftposAU = "eftpos_au"
        case girocard, interac, jcb, link, mastercard, unionpay, unknown, visa
    }

    /// `automatic` saves a linked account, and typed numbers, at once (Purse's test bank verifies
    /// them instantly); `instant` takes linked accounts only; `microdeposits` takes typed numbers
    /// only, and waits for the customer to read the deposits on their statement.
    public enum VerificationMethod: String, Codable, Sendable, CaseIterable, ParameterEnum { case automatic, instant, microdeposits }

    public var requestThreeDSecure: ThreeDSecure = .automatic
    /// The network the last confirmation asked for (Stripe takes it at confirmation only).
    public var network: CardNetwork?
    public var verificationMethod: VerificationMethod = .automatic
    public var financialConnections = FinancialConnectionsLink()

    public init() {}

    enum CodingKeys: String, CodingKey {
        case requestThreeDSecure = "request_three_d_secure"
        case network
        case verificationMethod = "verification_method"
        case financialConnections = "financial_connections"
    }

    /// Takes what a request sends; what it leaves out stays. `network` belongs to a confirmation:
    /// each one sets it (or clears it), and nothing else may. A client (an app confirming with
    /// the client secret) may ask for more than the merchant did, never less: not fewer 3D
    /// Secure checks, not another verification of bank accounts, not other Financial Connections
    /// options.
    public mutating func apply(_ params: PaymentMethodOptionsParameters?, confirming: Bool, byClient: Bool = false) throws {
        let networkParam = "payment_method_options[card][network]"
        if params?.card?.network != nil, !confirming {
            throw PurseError.invalidParameter(networkParam, "\(networkParam) can only be set when confirming a SetupIntent.")
        }
        if byClient {
            try checkClientMayApply(params)
        }
        if confirming { network = params?.card?.network }
        if let requested = params?.card?.requestThreeDSecure { requestThreeDSecure = requested }
        if let method = params?.usBankAccount?.verificationMethod { verificationMethod = method }
        if let connections = params?.usBankAccount?.financialConnections {
            try financialConnections.apply(connections, prefix: "payment_method_options[us_bank_account][financial_connections]")
        }
    }

    private func checkClientMayApply(_ params: PaymentMethodOptionsParameters?) throws {
        if let requested = params?.card?.requestThreeDSecure, !requested.isAtLeast(requestThreeDSecure) {
            throw PurseError.invalidParameter(
                "payment_method_options[card][request_three_d_secure]",
                "This SetupIntent asks for request_three_d_secure: \(requestThreeDSecure.rawValue); a client secret cannot ask for less."
            )
        }
        if let requested = params?.usBankAccount?.verificationMethod, requested != verificationMethod {
            throw PurseError.invalidParameter(
                "payment_method_options[us_bank_account][verification_method]",
                "This SetupIntent verifies bank accounts with verification_method: \(verificationMethod.rawValue); only the "
                    + "secret key may change it."
            )
        }
        if params?.usBankAccount?.financialConnections != nil {
            throw PurseError.invalidParameter(
                "payment_method_options[us_bank_account][financial_connections]",
                "Only the secret key may set payment_method_options[us_bank_account][financial_connections]."
            )
        }
    }

    /// How a confirmation saves a method under these options.
    enum Saving { case now, afterMicrodeposits }

    /// How saving `method` goes; refuses a method these options do not allow (a network the
    /// card does not run on, a bank account verified the other way). `param` names where the
    /// method came from.
    func saving(_ method: PaymentMethod, param: String) throws -> Saving {
        if let card = method.card, let network, !card.networks.available.contains(network.rawValue) {
            throw PurseError.invalidParameter(
                "payment_method_options[card][network]",
                "This card runs on \(card.networks.available.joined(separator: " and ")): it cannot be saved on the "
                    + "\(network.rawValue) network."
            )
        }
        guard let bank = method.usBankAccount else { return .now }
        let linked = bank.financialConnectionsAccount != nil
        switch verificationMethod {
        case .automatic:
            return .now
        case .instant:
            guard linked else {
                throw PurseError.invalidParameter(
                    param,
                    "This SetupIntent verifies bank accounts instantly (verification_method: instant): link the account "
                        + "through Financial Connections instead of entering its numbers."
                )
            }
            return .now
        case .microdeposits:
            guard !linked else {
                throw PurseError.invalidParameter(
                    param,
                    "This SetupIntent verifies bank accounts with microdeposits (verification_method: microdeposits): enter "
                        + "the account's numbers instead of linking it through Financial Connections."
                )
            }
            return .afterMicrodeposits
        }
    }

    /// The object's `payment_method_options` for the secret key: an entry per type it allows.
    func json(for types: [String]) -> JSONValue {
        var options = JSONObject()
        if types.contains(PaymentMethodType.card.rawValue) {
            options["card"] = [
                "mandate_options": .null, "network": network.map { .string($0.rawValue) } ?? .null,
                "request_three_d_secure": .string(requestThreeDSecure.rawValue),
            ]
        }
        if types.contains(PaymentMethodType.usBankAccount.rawValue) {
            options["us_bank_account"] = [
                "financial_connections": financialConnections.json, "mandate_options": .object(JSONObject()),
                "verification_method": .string(verificationMethod.rawValue),
            ]
        }
        return .object(options)
    }
}
