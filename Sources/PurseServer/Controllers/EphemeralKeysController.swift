import PurseCore
import PurseModels

/// `/v1/ephemeral_keys` (secret key).
struct EphemeralKeysController {
    let ephemeralKeys: EphemeralKeyService

    func register(on api: APIRouter) {
        api.post("/v1/ephemeral_keys", access: .secretKey, returns: .object(.ephemeralKey), create)
        api.delete("/v1/ephemeral_keys/{id}", access: .secretKey, returns: .object(.ephemeralKey), revoke)
    }

    @Sendable func create(_ request: APIRequest) async throws -> APIResult {
        // The key is rendered for the mobile SDK's API version, so Stripe insists on being told it.
        guard request.headers[.stripeVersion] != nil else {
            throw PurseError(
                .invalidRequest,
                message: "Stripe-Version header is required when creating ephemeral keys: pass the API version of "
                    + "the mobile SDK that will use the key (stripe-ios sends 2020-08-27).",
                param: "Stripe-Version"
            )
        }
        let params = try request.decode(EphemeralKeyService.CreateParameters.self)
        return try .object(try await ephemeralKeys.create(params, by: request.caller))
    }

    @Sendable func revoke(_ request: APIRequest) async throws -> APIResult {
        try .object(try await ephemeralKeys.revoke(request.pathParameter("id"), by: request.caller))
    }
}
