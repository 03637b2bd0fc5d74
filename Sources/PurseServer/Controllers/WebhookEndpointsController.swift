import PurseCore
import PurseModels

/// `/v1/webhook_endpoints` (secret key).
struct WebhookEndpointsController {
    let endpoints: WebhookEndpointService

    func register(on api: APIRouter) {
        api.post("/v1/webhook_endpoints", access: .secretKey, returns: .object(.webhookEndpoint), create)
        api.get("/v1/webhook_endpoints", access: .secretKey, returns: .list(of: .webhookEndpoint), list)
        api.get("/v1/webhook_endpoints/{id}", access: .secretKey, returns: .object(.webhookEndpoint), retrieve)
        api.post("/v1/webhook_endpoints/{id}", access: .secretKey, returns: .object(.webhookEndpoint), update)
        api.delete("/v1/webhook_endpoints/{id}", access: .secretKey, returns: .plain, delete)
        api.get("/v1/webhook_endpoints/{id}/deliveries", access: .secretKey, returns: .plain, deliveries)
    }

    @Sendable func create(_ request: APIRequest) async throws -> APIResult {
        try .object(try await endpoints.create(try request.decode(WebhookEndpointService.CreateParameters.self), by: request.caller))
    }

    @Sendable func list(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(PageParameters.self)
        return try .list(try await endpoints.list(params, by: request.caller), url: request.path)
    }

    @Sendable func retrieve(_ request: APIRequest) async throws -> APIResult {
        _ = try request.decode(NoParameters.self)
        return try .object(try await endpoints.retrieve(request.pathParameter("id"), by: request.caller))
    }

    @Sendable func update(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(WebhookEndpointService.UpdateParameters.self)
        return try .object(try await endpoints.update(request.pathParameter("id"), params, by: request.caller))
    }

    @Sendable func delete(_ request: APIRequest) async throws -> APIResult {
        try .object(try await endpoints.delete(request.pathParameter("id"), by: request.caller))
    }

    @Sendable func deliveries(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(PageParameters.self)
        return try .list(try await endpoints.attempts(request.pathParameter("id"), params, by: request.caller), url: request.path)
    }
}
