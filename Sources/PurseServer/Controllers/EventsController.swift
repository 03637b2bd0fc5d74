import PurseCore
import PurseModels

/// `/v1/events`: the event log, secret key only.
struct EventsController {
    let events: EventService

    func register(on api: APIRouter) {
        api.get("/v1/events", access: .secretKey, returns: .list(of: .event), list)
        api.get("/v1/events/{id}", access: .secretKey, returns: .object(.event), retrieve)
    }

    @Sendable func list(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(EventService.ListParams.self)
        return try .list(try await events.list(params, account: request.caller.accountID), url: request.path)
    }

    @Sendable func retrieve(_ request: APIRequest) async throws -> APIResult {
        try .object(try await events.retrieve(request.pathParameter("id"), account: request.caller.accountID))
    }
}
