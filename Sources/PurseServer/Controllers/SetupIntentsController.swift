import PurseCore
import PurseModels

/// `/v1/setup_intents`: the secret key for everything; a publishable key with the intent's client
/// secret may retrieve and confirm (and sees Stripe's documented subset of fields).
struct SetupIntentsController {
    let setupIntents: SetupIntentService

    func register(on api: APIRouter) {
        api.post("/v1/setup_intents", access: .secretKey, returns: .object(.setupIntent), create)
        api.get("/v1/setup_intents", access: .secretKey, returns: .list(of: .setupIntent), list)
        api.get("/v1/setup_intents/{id}", access: .publishableWithClientSecret, returns: .object(.setupIntent), retrieve)
        api.post("/v1/setup_intents/{id}", access: .secretKey, returns: .object(.setupIntent), update)
        api.post(
            "/v1/setup_intents/{id}/confirm", access: .publishableWithClientSecret, returns: .object(.setupIntent), confirm
        )
        api.post("/v1/setup_intents/{id}/cancel", access: .secretKey, returns: .object(.setupIntent), cancel)
        api.post(
            "/v1/setup_intents/{id}/verify_microdeposits", access: .publishableWithClientSecret, returns: .object(.setupIntent),
            verifyMicrodeposits
        )
    }

    @Sendable func create(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(SetupIntentCreateParameters.self)
        return try render(try await setupIntents.create(params, by: request.caller, request: request.info), for: request)
    }

    @Sendable func retrieve(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(SetupIntentRetrieveParameters.self)
        return try render(
            try await setupIntents.retrieve(request.pathParameter("id"), clientSecret: params.clientSecret, by: request.caller),
            for: request
        )
    }

    @Sendable func update(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(SetupIntentUpdateParameters.self)
        return try render(
            try await setupIntents.update(request.pathParameter("id"), params, by: request.caller, request: request.info),
            for: request
        )
    }

    @Sendable func confirm(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(SetupIntentConfirmParameters.self)
        return try render(
            try await setupIntents.confirm(request.pathParameter("id"), params, by: request.caller, request: request.info),
            for: request
        )
    }

    @Sendable func cancel(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(SetupIntentCancelParameters.self)
        return try render(
            try await setupIntents.cancel(
                request.pathParameter("id"), reason: params.cancellationReason, by: request.caller, request: request.info
            ),
            for: request
        )
    }

    @Sendable func verifyMicrodeposits(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(SetupIntentVerifyMicrodepositsParameters.self)
        return try render(
            try await setupIntents.verifyMicrodeposits(request.pathParameter("id"), params, by: request.caller, request: request.info),
            for: request
        )
    }

    @Sendable func list(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(SetupIntentListParameters.self)
        return try .list(try await setupIntents.list(params, by: request.caller), url: request.path)
    }

    private func render(_ intent: SetupIntent, for request: APIRequest) throws -> APIResult {
        APIResult(body: try intent.json(for: request.caller))
    }
}
