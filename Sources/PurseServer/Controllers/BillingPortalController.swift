import PurseCore
import PurseModels

/// `/v1/billing_portal/configurations` and `/v1/billing_portal/sessions` (secret key).
struct BillingPortalController {
    let portal: BillingPortalService

    func register(on api: APIRouter) {
        let configurations = "/v1/billing_portal/configurations"
        api.post(configurations, access: .secretKey, returns: .object(.billingPortalConfiguration), createConfiguration)
        api.get(configurations, access: .secretKey, returns: .list(of: .billingPortalConfiguration), listConfigurations)
        api.get(configurations + "/{id}", access: .secretKey, returns: .object(.billingPortalConfiguration), retrieveConfiguration)
        api.post(configurations + "/{id}", access: .secretKey, returns: .object(.billingPortalConfiguration), updateConfiguration)
        api.post("/v1/billing_portal/sessions", access: .secretKey, returns: .object(.billingPortalSession), createSession)
    }

    @Sendable func createConfiguration(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(BillingPortalConfigurationParameters.self)
        return try .object(try await portal.createConfiguration(params, by: request.caller, request: request.info))
    }

    @Sendable func listConfigurations(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(BillingPortalConfigurationListParameters.self)
        return try .list(try await portal.listConfigurations(params, by: request.caller), url: request.path)
    }

    @Sendable func retrieveConfiguration(_ request: APIRequest) async throws -> APIResult {
        _ = try request.decode(NoParameters.self)
        return try .object(try await portal.retrieveConfiguration(request.pathParameter("id"), by: request.caller))
    }

    @Sendable func updateConfiguration(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(BillingPortalConfigurationParameters.self)
        return try .object(try await portal.updateConfiguration(request.pathParameter("id"), params, by: request.caller, request: request.info))
    }

    @Sendable func createSession(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(BillingPortalSessionParameters.self)
        return try .object(try await portal.createSession(params, by: request.caller, request: request.info))
    }
}
