import PurseCore
import PurseModels

/// `/v1/elements/...`: the calls the mobile SDK makes.
struct ElementsController {
    let sessions: ElementsSessionService

    func register(on api: APIRouter) {
        api.get("/v1/elements/sessions", access: .publishableKey, returns: .object(.elementsSession), session)
    }

    @Sendable func session(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(ElementsSessionService.Parameters.self, ignoring: ElementsSessionService.Parameters.ignoredByPurse)
        return try .object(try await sessions.session(params, by: request.caller))
    }
}
