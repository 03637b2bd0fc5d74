import HTTPTypes
import Hummingbird
import NIOCore
import PurseCore
import PurseModels

/// Registers the API's routes and runs every request through the same steps: authenticate
/// against the route's ``Access``, read the parameters, check `expand`, honour
/// `Idempotency-Key`, run the handler, expand, render. Routes are also recorded for the OpenAPI
/// document's completeness test.
final class APIRouter {
    typealias Handler = @Sendable (APIRequest) async throws -> APIResult

    /// A route as declared.
    struct Route: Sendable {
        let method: HTTPRequest.Method
        let path: String
        let access: Access
        let returns: Returns
    }

    private let router: Router<PurseRequestContext>
    private let pipeline: Pipeline
    private(set) var routes: [Route] = []

    /// What every request's steps use.
    struct Pipeline: Sendable {
        let authenticator: Authenticator
        let idempotency: IdempotencyService
        let loader: ObjectLoader
        let maxBodySize: Int
        /// Per-key limits, when `--rate-limit` is on.
        let rateLimiter: RateLimiter?
        /// Per-client-address limits on failed authentications, when `--rate-limit` is on: a
        /// client guessing keys cannot make Purse look up more than the limit allows.
        let failedAuthentications: RateLimiter?
        let clientAddress: ClientAddress
        let ignoredParameters: IgnoredParameters
    }

    init(router: Router<PurseRequestContext>, pipeline: Pipeline) {
        self.router = router
        self.pipeline = pipeline
    }

    func get(_ path: String, access: Access, returns: Returns, _ handler: @escaping Handler) {
        add(.get, path, access: access, returns: returns, handler)
    }

    func post(_ path: String, access: Access, returns: Returns, _ handler: @escaping Handler) {
        add(.post, path, access: access, returns: returns, handler)
    }

    func delete(_ path: String, access: Access, returns: Returns, _ handler: @escaping Handler) {
        add(.delete, path, access: access, returns: returns, handler)
    }

    /// A route that answers with a response of its own making (pages, documents).
    func raw(
        _ method: HTTPRequest.Method,
        _ path: String,
        _ handler: @escaping @Sendable (Request, PurseRequestContext) async throws -> Response
    ) {
        routes.append(Route(method: method, path: path, access: .public, returns: .plain))
        router.on(RouterPath(path), method: method, use: handler)
    }

    private func add(
        _ method: HTTPRequest.Method,
        _ path: String,
        access: Access,
        returns: Returns,
        _ handler: @escaping Handler
    ) {
        let route = Route(method: method, path: path, access: access, returns: returns)
        routes.append(route)
        let pipeline = self.pipeline
        router.on(RouterPath(path), method: method) { request, context in
            try await pipeline.respond(to: request, context: context, route: route, handler: handler)
        }
    }

    // MARK: - The pipeline

}

extension APIRouter.Pipeline {
    func respond(
        to request: Request, context: PurseRequestContext, route: APIRouter.Route, handler: @escaping APIRouter.Handler
    ) async throws -> Response {
        let credential: Credential?
        if route.access.isPublic {
            credential = nil
        } else {
            let resolved = try await authenticate(request, context: context)
            try route.access.check(resolved)
            if let wait = rateLimiter?.admit(resolved.sourceID) { throw APIError.rateLimited(retryAfter: wait) }
            credential = resolved
        }

        var request = request
        var parameters: ParamObject
        var body = ByteBuffer()
        if request.method == .post {
            body = try await request.collectBody(limit: maxBodySize)
            parameters = try RequestParameters.fromBody(body, contentType: request.headers[.contentType])
        } else {
            parameters = try RequestParameters.fromQuery(request.uri.query)
        }
        let expansion = try Expansion.plan(try RequestParameters.extractExpand(from: &parameters), for: route.returns)

        let idempotencyKey = request.method == .post ? request.headers[.idempotencyKey] : nil
        let info = RequestInfo(
            id: context.requestID,
            idempotencyKey: idempotencyKey,
            apiVersion: (try? StripeVersion.parse(request.headers[.stripeVersion])) ?? nil ?? RequestInfo.defaultAPIVersion
        )
        let apiRequest = APIRequest(
            method: request.method, path: request.uri.path, headers: request.headers, credential: credential,
            info: info, parameters: parameters, pathParameters: context.parameters,
            parameterPolicy: ParameterPolicy(credential: credential, routePath: route.path),
            ignoredParameters: ignoredParameters, logger: context.logger
        )
        let run = { @Sendable () async throws -> (status: HTTPResponse.Status, body: [UInt8], headers: HTTPFields) in
            let result = try await handler(apiRequest)
            if expansion.isEmpty, case .rendered(let bytes) = result.body { return (result.status, bytes, result.headers) }
            let caller = credential
            let body = try await Expansion.apply(expansion, to: try result.value(), returns: route.returns) { type, id in
                guard let caller else { return nil }
                return try await loader.load(type, id: id, caller: caller)
            }
            return (result.status, JSONWriter.bytes(body), result.headers)
        }

        guard let idempotencyKey, let credential else {
            let result = try await run()
            return .json(bytes: result.body, status: result.status, headers: result.headers)
        }
        var hashed = Array((request.headers[.contentType] ?? "").utf8)
        hashed.append(0)
        hashed += body.readableBytesView
        let reservation = IdempotentRequest(
            accountID: credential.accountID, caller: credential.idempotencyScope, key: idempotencyKey,
            method: request.method.rawValue, path: request.uri.path, parameters: hashed
        )
        switch try await idempotency.reserve(reservation) {
        case .replay(let status, let bytes):
            return .json(bytes: bytes, status: HTTPResponse.Status(code: status), headers: [.idempotentReplayed: "true"])
        case .proceed:
            let result: (status: HTTPResponse.Status, body: [UInt8], headers: HTTPFields)
            do {
                result = try await run()
            } catch {
                let apiError = ResponseMiddleware.apiError(for: error, request: request, context: context)
                if apiError.isStoredForIdempotency {
                    let body = JSONWriter.bytes(apiError.body)
                    await idempotency.settle(reservation) { try await $0.complete(reservation, status: Int(apiError.status.code), body: body) }
                } else {
                    await idempotency.settle(reservation) { try await $0.release(reservation) }
                }
                throw apiError
            }
            // Done and committed: the client gets its answer even if storing it for replays has to
            // wait for the database.
            await idempotency.settle(reservation) {
                try await $0.complete(reservation, status: Int(result.status.code), body: result.body)
            }
            return .json(bytes: result.body, status: result.status)
        }
    }

    /// The request's credential. With `--rate-limit`, a client address whose failed
    /// authentications used up its allowance is refused (429) before any key of its is looked up,
    /// unless the key is one held in memory; each failure takes from that allowance.
    private func authenticate(_ request: Request, context: PurseRequestContext) async throws -> Credential {
        guard let failedAuthentications else {
            return try await authenticator.authenticate(try AuthorizationHeader.key(from: request.headers))
        }
        let address =
            clientAddress.of(peer: context.peerAddress, forwardedFor: request.headers[.xForwardedFor]) ?? "unknown"
        let key = try? AuthorizationHeader.key(from: request.headers)
        if let wait = failedAuthentications.wait(address), key.flatMap(authenticator.cached) == nil {
            throw APIError.rateLimited(retryAfter: wait)
        }
        do {
            return try await authenticator.authenticate(try AuthorizationHeader.key(from: request.headers))
        } catch let error as PurseError where error.category == .authentication {
            _ = failedAuthentications.admit(address)
            throw error
        }
    }
}

extension HTTPField.Name {
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
}
