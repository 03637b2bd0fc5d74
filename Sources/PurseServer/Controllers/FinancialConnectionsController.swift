import PurseCore
import PurseModels
import PurseParameters

/// Financial Connections as Stripe's mobile SDKs call it to add a US bank account (the "link
/// account session" endpoints, with a publishable key and the session's client secret), and
/// the secret key's reads of sessions and accounts. The SDK endpoints accept any parameter an
/// SDK release adds (``ParameterPolicy``).
struct FinancialConnectionsController {
    let financialConnections: FinancialConnectionsService

    func register(on api: APIRouter) {
        api.post(
            "/v1/setup_intents/{id}/link_account_sessions", access: .publishableWithClientSecret,
            returns: .object(.financialConnectionsSession), createForSetupIntent
        )
        api.post(
            "/v1/connections/link_account_sessions_for_deferred_payment", access: .publishableKey,
            returns: .object(.financialConnectionsSession), createDeferred
        )
        api.post(
            "/v1/financial_connections/sessions/synchronize", access: .publishableKey,
            returns: .object(.financialConnectionsSynchronization), synchronize
        )
        api.get(
            "/v1/link_account_sessions/session_receipt", access: .publishableKey,
            returns: .object(.financialConnectionsSession), receipt
        )
        api.get(
            "/v1/link_account_sessions/list_accounts", access: .publishableKey,
            returns: .list(of: .financialConnectionsAccount), listAccounts
        )
        api.post(
            "/v1/link_account_sessions/complete", access: .publishableKey, returns: .object(.financialConnectionsSession),
            complete
        )
        api.get(
            "/v1/financial_connections/sessions/{id}", access: .secretKey, returns: .object(.financialConnectionsSession),
            retrieveSession
        )
        api.get(
            "/v1/financial_connections/accounts/{id}", access: .secretKey, returns: .object(.financialConnectionsAccount),
            retrieveAccount
        )
    }

    @Sendable func createForSetupIntent(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(SetupIntentLinkParameters.self)
        return try .object(
            try await financialConnections.create(forSetupIntent: request.pathParameter("id"), params, by: request.caller)
        )
    }

    @Sendable func createDeferred(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(DeferredLinkParameters.self)
        return try .object(try await financialConnections.create(deferred: params, by: request.caller))
    }

    @Sendable func synchronize(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(SynchronizeParameters.self)
        return try .object(try await financialConnections.synchronize(params, by: request.caller))
    }

    @Sendable func receipt(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(SessionClientSecretParameters.self)
        return try .object(try await financialConnections.receipt(clientSecret: params.clientSecret, by: request.caller))
    }

    @Sendable func listAccounts(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(LinkedAccountListParameters.self)
        let accounts = try await financialConnections.accounts(params, by: request.caller)
        return try .list(Page(data: accounts, hasMore: false), url: request.path)
    }

    @Sendable func complete(_ request: APIRequest) async throws -> APIResult {
        let params = try request.decode(SessionClientSecretParameters.self)
        return try .object(try await financialConnections.complete(clientSecret: params.clientSecret, by: request.caller))
    }

    @Sendable func retrieveSession(_ request: APIRequest) async throws -> APIResult {
        _ = try request.decode(NoParameters.self)
        return try .object(try await financialConnections.retrieve(request.pathParameter("id"), by: request.caller))
    }

    @Sendable func retrieveAccount(_ request: APIRequest) async throws -> APIResult {
        _ = try request.decode(NoParameters.self)
        return try .object(try await financialConnections.retrieve(account: request.pathParameter("id"), by: request.caller))
    }
}
