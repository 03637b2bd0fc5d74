import PurseCore
import PurseModels

/// `/v1/customer_sessions` (secret key).
struct CustomerSessionsController {
    let sessions: CustomerSessionService

    func register(on api: APIRouter) {
        api.post("/v1/customer_sessions", access: .secretKey, returns: .object(.customerSession), create)
        api.delete("/v1/customer_sessions/{id}", access: .secretKey, returns: .object(.customerSession), revoke)
    }

    @Sendable func create(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(CustomerSessionCreateParameters.self)
        return try .object(try await sessions.create(params, by: request.caller))
    }

    @Sendable func revoke(_ request: APIRequest) async throws -> APIResult {
        try .object(try await sessions.revoke(request.pathParameter("id"), by: request.caller))
    }
}
