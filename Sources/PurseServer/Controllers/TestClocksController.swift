import PurseCore
import PurseModels

/// `/v1/test_helpers/test_clocks` (secret key).
struct TestClocksController {
    let clocks: TestClockService

    func register(on api: APIRouter) {
        let path = "/v1/test_helpers/test_clocks"
        api.post(path, access: .secretKey, returns: .object(.testClock), create)
        api.get(path, access: .secretKey, returns: .list(of: .testClock), list)
        api.get(path + "/{id}", access: .secretKey, returns: .object(.testClock), retrieve)
        api.delete(path + "/{id}", access: .secretKey, returns: .plain, delete)
        api.post(path + "/{id}/advance", access: .secretKey, returns: .object(.testClock), advance)
    }

    @Sendable func create(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(TestClockCreateParameters.self)
        return try .object(try await clocks.create(params, by: request.caller, request: request.info))
    }

    @Sendable func list(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(PageParameters.self)
        return try .list(try await clocks.list(params, by: request.caller), url: request.path)
    }

    @Sendable func retrieve(_ request: APIRequest) async throws -> APIResult {
        _ = try request.decode(NoParameters.self)
        return try .object(try await clocks.retrieve(request.pathParameter("id"), by: request.caller))
    }

    @Sendable func delete(_ request: APIRequest) async throws -> APIResult {
        _ = try request.decode(NoParameters.self)
        return try .object(try await clocks.delete(request.pathParameter("id"), by: request.caller, request: request.info))
    }

    @Sendable func advance(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(TestClockAdvanceParameters.self)
        return try .object(try await clocks.advance(request.pathParameter("id"), params, by: request.caller, request: request.info))
    }
}
