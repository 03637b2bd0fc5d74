import HTTPTypes
import PurseCore
import PurseModels

/// `/v1/elements/...`: the calls the mobile SDK makes. The POSTs take a customer's key (a
/// customer session's, with its client secret, or an ephemeral key).
struct ElementsController {
    let elements: ElementsSessionService
    let sessions: CustomerSessionService
    let paymentMethods: PaymentMethodService
    let selection: SelectedOptionService
    let customers: CustomerService

    func register(on api: APIRouter) {
        api.get("/v1/elements/sessions", access: .publishableKey, returns: .object(.elementsSession), session)
        api.post(
            "/v1/elements/payment_methods/{id}/detach", access: .customerKeyOnly, returns: .object(.paymentMethod), detach
        )
        api.post(
            "/v1/elements/customers/{id}/set_default_payment_method", access: .customerKeyOnly, returns: .object(.customer),
            setDefault
        )
    }

    struct DetachParameters: Decodable {
        var customerSessionClientSecret: String?

        enum CodingKeys: String, CodingKey { case customerSessionClientSecret = "customer_session_client_secret" }
    }

    struct SetDefaultParameters: Decodable {
        var paymentMethod: String
        var customerSessionClientSecret: String?

        enum CodingKeys: String, CodingKey {
            case paymentMethod = "payment_method"
            case customerSessionClientSecret = "customer_session_client_secret"
        }
    }

    @Sendable func session(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(ElementsSessionService.Parameters.self)
        let contract = MobileSessionContract(requestHeader: request.headers[Self.mobileSessionContract])
        var result = try APIResult.object(try await elements.session(params, contract: contract, by: request.caller))
        if let contract { result.headers[Self.mobileSessionContract] = contract.responseHeader }
        return result
    }

    static let mobileSessionContract = HTTPField.Name(MobileSessionContract.headerName)!

    /// Removing a saved method; refused when the session's `payment_method_remove` is disabled.
    @Sendable func detach(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(DetachParameters.self)
        try await checkSession(params.customerSessionClientSecret, of: request.caller, required: true)
        return try .object(try await paymentMethods.detach(request.pathParameter("id"), by: request.caller, request: request.info))
    }

    /// Setting the default, never gated by a feature; answers the customer and updates the
    /// selected option (spec §4).
    @Sendable func setDefault(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(SetDefaultParameters.self)
        // stripe-ios sends only payment_method here; a client secret, when sent, must match.
        try await checkSession(params.customerSessionClientSecret, of: request.caller, required: false)
        let customer = request.pathParameter("id")
        _ = try await selection.select(
            .set(params.paymentMethod), customer: customer, by: request.caller, request: request.info, param: "payment_method"
        )
        switch try await customers.retrieve(customer, by: request.caller) {
        case .active(let updated): return try .object(updated)
        case .deleted: throw PurseError.noSuch("customer", customer, param: "id")
        }
    }

    /// A session's key must come with that session's client secret where the SDK sends it.
    private func checkSession(_ clientSecret: String?, of caller: Credential, required: Bool) async throws {
        guard caller.kind == .customerSession else { return }
        guard let clientSecret else {
            if required { throw PurseError.missingParameter("customer_session_client_secret") }
            return
        }
        guard try await sessions.isClientSecret(clientSecret, of: caller.sourceID, account: caller.accountID) else {
            throw PurseError.invalidParameter(
                "customer_session_client_secret", "The customer_session_client_secret does not belong to this key's session."
            )
        }
    }
}
