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
    private let authenticator: Authenticator
    private let idempotency: IdempotencyStore
    private let loader: ObjectLoader
    private let maxBodySize: Int
    private let rateLimiter: RateLimiter?
    private let ignoredParameters: IgnoredParameters
    private(set) var routes: [Route] = []

    init(
        router: Router<PurseRequestContext>,
        authenticator: Authenticator,
        idempotency: IdempotencyStore,
        loader: ObjectLoader,
        maxBodySize: Int,
        rateLimiter: RateLimiter?,
        ignoredParameters: IgnoredParameters
    ) {
        self.router = router
        self.authenticator = authenticator
        self.idempotency = idempotency
        self.loader = loader
        self.maxBodySize = maxBodySize
        self.rateLimiter = rateLimiter
        self.ignoredParameters = ignoredParameters
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
        let authenticator = self.authenticator
        let idempotency = self.idempotency
        let loader = self.loader
        let maxBodySize = self.maxBodySize
        let rateLimiter = self.rateLimiter
        let ignoredParameters = self.ignoredParameters
        router.on(RouterPath(path), method: method) { request, context in
            try await Self.respond(
                to: request, context: context, route: route, handler: handler, authenticator: authenticator,
                idempotency: idempotency, loader: loader, maxBodySize: maxBodySize, rateLimiter: rateLimiter,
                ignoredParameters: ignoredParameters
            )
        }
    }

    // MARK: - The pipeline

    private static func respond(
        to request: Request,
        context: PurseRequestContext,
        route: Route,
        handler: @escaping Handler,
        authenticator: Authenticator,
        idempotency: IdempotencyStore,
        loader: ObjectLoader,
        maxBodySize: Int,
        rateLimiter: RateLimiter?,
        ignoredParameters: IgnoredParameters
    ) async throws -> Response {
        let credential: Credential?
        if route.access.isPublic {
            credential = nil
        } else {
            let resolved = try await authenticator.authenticate(try AuthorizationHeader.key(from: request.headers))
            try route.access.check(resolved)
            if let wait = rateLimiter?.admit(resolved.sourceID) { throw APIError.rateLimited(retryAfter: wait) }
            credential = resolved
        }

        var request = request
        var parameters: ParamObject
        var body = ByteBuffer()
        if request.method == .post {
            do {
                body = try await request.collectBody(upTo: maxBodySize)
            } catch is NIOTooManyBytesError {
                throw APIError.bodyTooLarge(limit: maxBodySize)
            } catch let timeout as RequestBodyTimeout {
                throw APIError.requestTimeout(seconds: timeout.seconds)
            }
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
        let reservation = IdempotencyStore.Request(
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
}
