import PurseCore
import PurseModels

/// `/v1/payment_methods` and a customer's payment methods and selected option.
struct PaymentMethodsController {
    let paymentMethods: PaymentMethodService
    let selection: SelectedOptionService

    func register(on api: APIRouter) {
        api.post("/v1/payment_methods", access: .publishableKey, returns: .object(.paymentMethod), create)
        api.get("/v1/payment_methods", access: .customerScoped, returns: .list(of: .paymentMethod), list)
        api.get("/v1/payment_methods/{id}", access: .customerScoped, returns: .object(.paymentMethod), retrieve)
        api.post("/v1/payment_methods/{id}", access: .customerScoped, returns: .object(.paymentMethod), update)
        api.post("/v1/payment_methods/{id}/attach", access: .customerScoped, returns: .object(.paymentMethod), attach)
        api.post("/v1/payment_methods/{id}/detach", access: .customerScoped, returns: .object(.paymentMethod), detach)
        api.get(
            "/v1/customers/{id}/payment_methods", access: .customerScoped, returns: .list(of: .paymentMethod),
            listForCustomer
        )
        api.get(
            "/v1/customers/{id}/payment_methods/{payment_method}", access: .customerScoped,
            returns: .object(.paymentMethod), retrieveForCustomer
        )
        api.get(
            "/v1/customers/{id}/selected_payment_option", access: .customerScoped,
            returns: .object(.selectedPaymentOption), selectedOption
        )
        api.post(
            "/v1/customers/{id}/selected_payment_option", access: .customerScoped,
            returns: .object(.selectedPaymentOption), select
        )
    }

    @Sendable func create(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(PaymentMethodCreateParameters.self)
        return try .object(try await paymentMethods.create(params, by: request.caller))
    }

    @Sendable func list(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(PaymentMethodListParameters.self)
        return .list(try await paymentMethods.list(params, by: request.caller), url: request.path)
    }

    @Sendable func retrieve(_ request: APIRequest) async throws -> APIResult {
        try .object(try await paymentMethods.retrieve(request.pathParameter("id"), by: request.caller))
    }

    @Sendable func update(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(PaymentMethodUpdateParameters.self)
        return try .object(
            try await paymentMethods.update(request.pathParameter("id"), params, by: request.caller, request: request.info)
        )
    }

    @Sendable func attach(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(AttachParameters.self)
        return try .object(
            try await paymentMethods.attach(
                request.pathParameter("id"), to: params.customer, by: request.caller, request: request.info
            )
        )
    }

    @Sendable func detach(_ request: APIRequest) async throws -> APIResult {
        _ = try request.decode(NoParameters.self)
        return try .object(try await paymentMethods.detach(request.pathParameter("id"), by: request.caller, request: request.info))
    }

    @Sendable func listForCustomer(_ request: APIRequest) async throws -> APIResult {
        var params = try request.decode(CustomerPaymentMethodListParameters.self).listParameters
        params.customer = request.pathParameter("id")
        return .list(try await paymentMethods.list(params, by: request.caller, customerParam: "id"), url: request.path)
    }

    @Sendable func retrieveForCustomer(_ request: APIRequest) async throws -> APIResult {
        try .object(
            try await paymentMethods.retrieve(
                request.pathParameter("payment_method"), customer: request.pathParameter("id"), by: request.caller
            )
        )
    }

    @Sendable func selectedOption(_ request: APIRequest) async throws -> APIResult {
        try .object(try await selection.retrieve(customer: request.pathParameter("id"), by: request.caller))
    }

    @Sendable func select(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(SelectedOptionParameters.self)
        return try .object(
            try await selection.select(
                params.option, customer: request.pathParameter("id"), by: request.caller, request: request.info
            )
        )
    }
}

/// For endpoints that take no parameters: anything sent is refused as unknown.
struct NoParameters: Decodable {}

/// `GET /v1/customers/{id}/payment_methods`: the customer comes from the path.
struct CustomerPaymentMethodListParameters: Decodable {
    var type: PaymentMethodType?
    var allowRedisplay: AllowRedisplay?
    var limit: Int?
    var startingAfter: String?
    var endingBefore: String?

    enum CodingKeys: String, CodingKey {
        case type
        case allowRedisplay = "allow_redisplay"
        case limit
        case startingAfter = "starting_after"
        case endingBefore = "ending_before"
    }

    var listParameters: PaymentMethodListParameters {
        PaymentMethodListParameters(
            customer: nil, type: type, allowRedisplay: allowRedisplay, limit: limit, startingAfter: startingAfter,
            endingBefore: endingBefore
        )
    }
}
