import PurseCore
import PurseModels

/// `/v1/customer_sheet_settings`: managed with the secret key; `current` tells a customer's key
/// (ephemeral or session) the settings in force for it.
struct SheetSettingsController {
    let settings: SheetSettingsService

    func register(on api: APIRouter) {
        api.post("/v1/customer_sheet_settings", access: .secretKey, returns: .object(.sheetSettings), create)
        api.get("/v1/customer_sheet_settings", access: .secretKey, returns: .list(of: .sheetSettings), list)
        api.get("/v1/customer_sheet_settings/current", access: .customerKeyOnly, returns: .object(.sheetSettings), current)
        api.get("/v1/customer_sheet_settings/{id}", access: .secretKey, returns: .object(.sheetSettings), retrieve)
        api.post("/v1/customer_sheet_settings/{id}", access: .secretKey, returns: .object(.sheetSettings), update)
        api.delete("/v1/customer_sheet_settings/{id}", access: .secretKey, returns: .plain, delete)
    }

    @Sendable func create(_ request: APIRequest) async throws -> APIResult {
        try .object(try await settings.create(try request.decode(SheetSettingsParameters.self), by: request.caller))
    }

    @Sendable func list(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(PageParameters.self)
        return try .list(try await settings.list(params, by: request.caller), url: request.path)
    }

    @Sendable func current(_ request: APIRequest) async throws -> APIResult {
        _ = try request.decode(NoParameters.self)
        return APIResult(body: try await settings.inForce(for: request.caller).json)
    }

    @Sendable func retrieve(_ request: APIRequest) async throws -> APIResult {
        _ = try request.decode(NoParameters.self)
        return try .object(try await settings.retrieve(request.pathParameter("id"), by: request.caller))
    }

    @Sendable func update(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(SheetSettingsParameters.self)
        return try .object(try await settings.update(request.pathParameter("id"), params, by: request.caller))
    }

    @Sendable func delete(_ request: APIRequest) async throws -> APIResult {
        try .object(try await settings.delete(request.pathParameter("id"), by: request.caller))
    }
}
