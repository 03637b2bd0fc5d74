import PurseCore
import PurseModels

/// `/v1/customers`.
struct CustomersController {
    let customers: CustomerService

    func register(on api: APIRouter) {
        api.post("/v1/customers", access: .secretKey, returns: .object(.customer), create)
        api.get("/v1/customers", access: .secretKey, returns: .list(of: .customer), list)
        api.get("/v1/customers/search", access: .secretKey, returns: .searchResult(of: .customer), search)
        api.get("/v1/customers/{id}", access: .customerScoped, returns: .object(.customer), retrieve)
        api.post("/v1/customers/{id}", access: .secretKey, returns: .object(.customer), update)
        api.delete("/v1/customers/{id}", access: .secretKey, returns: .plain, delete)
        api.post(
            "/v1/customers/{id}/revoke_credentials", access: .secretKey, returns: .object(.credentialRevocation),
            revokeCredentials
        )
    }

    @Sendable func revokeCredentials(_ request: APIRequest) async throws -> APIResult {
        _ = try request.decode(NoParameters.self)
        return try .object(try await customers.revokeCredentials(request.pathParameter("id"), by: request.caller))
    }

    @Sendable func create(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(CustomerCreateParameters.self)
        return APIResult(rendered: try await customers.create(params, by: request.caller, request: request.info).bytes)
    }

    @Sendable func retrieve(_ request: APIRequest) async throws -> APIResult {
        switch try await customers.retrieve(request.pathParameter("id"), by: request.caller) {
        case .active(let customer): return try .object(customer)
        case .deleted(let stub): return try .object(stub)
        }
    }

    @Sendable func update(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(CustomerUpdateParameters.self)
        return try .object(
            try await customers.update(request.pathParameter("id"), params, by: request.caller, request: request.info)
        )
    }

    @Sendable func delete(_ request: APIRequest) async throws -> APIResult {
        try .object(try await customers.delete(request.pathParameter("id"), by: request.caller, request: request.info))
    }

    @Sendable func search(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(CustomerSearchParameters.self)
        let result = try await customers.search(params, countingTotal: request.expandsTotalCount, by: request.caller)
        return try .searchResult(result, url: request.path)
    }

    @Sendable func list(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(CustomerListParameters.self)
        return try .list(try await customers.list(params, by: request.caller), url: request.path)
    }
}
