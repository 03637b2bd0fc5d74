import HTTPTypes
import Hummingbird
import NIOCore
import Postgres
import PurseCore
import PurseModels
import PurseParameters

/// Registers the API's routes and runs every request through the same steps: authenticate
/// against the route's ``Access``, read the parameters, check `expand`, honour
/// `Idempotency-Key`, run the handler, expand, render. Routes are also recorded for the OpenAPI
/// document's completeness test.
final class APIRouter {
    typealias Handler = @Sendable (APIRequest) async throws -> APIResult

    /// What a handler answered, rendered.
    struct Answer: Sendable {
        let status: HTTPResponse.Status
        let body: [UInt8]
        let headers: HTTPFields
    }

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
        /// Test-only (debug builds): where a request with an idempotency key may kill the server.
        let faultPoint: FaultPoint?
        /// `--request-timeout`, when on.
        let requestTimeout: Duration?
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
    /// How long after its deadline a request's cancelled statement has to answer before its
    /// connection is given up (``PostgresDeadline``).
    static let deadlineGrace: Duration = .seconds(1)

    /// The request's steps, within its deadline (`--request-timeout`) when there is one. The
    /// deadline is the database driver's to keep (``PostgresDeadline``): at it, the request's wait
    /// for a connection ends and its running statement is cancelled on the server, with no timer
    /// or task per request. Stopped that way, nothing of the request was applied.
    func respond(
        to request: Request, context: PurseRequestContext, route: APIRouter.Route, handler: @escaping APIRouter.Handler
    ) async throws -> Response {
        guard let requestTimeout else { return try await respondUnbounded(to: request, context: context, route: route, handler: handler) }
        let deadline = PostgresDeadline(.now + requestTimeout, grace: Self.deadlineGrace)
        do {
            return try await PostgresDeadline.$current.withValue(deadline) {
                try await respondUnbounded(to: request, context: context, route: route, handler: handler)
            }
        } catch is CancellationError where deadline.instant <= .now {
            throw APIError.deadlineExceeded(requestTimeout)
        }
    }

    private func respondUnbounded(
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
            ignoredParameters: ignoredParameters, logger: context.logger, expandsTotalCount: expansion.totalCount
        )
        let run = { @Sendable () async throws -> APIRouter.Answer in
            let result = try await handler(apiRequest)
            if expansion.isEmpty, case .rendered(let bytes) = result.body {
                return APIRouter.Answer(status: result.status, body: bytes, headers: result.headers)
            }
            let caller = credential
            let body = try await Expansion.apply(expansion, to: try result.value(), returns: route.returns) { type, id in
                guard let caller else { return nil }
                return try await loader.load(type, id: id, caller: caller)
            }
            return APIRouter.Answer(status: result.status, body: JSONWriter.bytes(body), headers: result.headers)
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
        // The request runs in one transaction with its key's answer. A decline is an answer too:
        // kept with what the confirmation recorded. Any other error keeps nothing, so a retry
        // runs afresh.
        let outcome = try await idempotency.perform(reservation) {
            () async throws -> (Result<APIRouter.Answer, APIError>, answer: IdempotencyService.Answer) in
            do {
                let result = try await run()
                faultPoint?.reached(.beforeCommit)
                return (.success(result), IdempotencyService.Answer(status: Int(result.status.code), body: result.body))
            } catch let error as PurseError where error.isExecutionOutcome {
                let apiError = APIError(error)
                return (.failure(apiError), IdempotencyService.Answer(status: Int(apiError.status.code), body: JSONWriter.bytes(apiError.body)))
            }
        }
        switch outcome {
        case .replayed(let answer):
            return .json(bytes: answer.body, status: HTTPResponse.Status(code: answer.status), headers: [.idempotentReplayed: "true"])
        case .ran(let result):
            faultPoint?.reached(.afterCommit)
            switch result {
            case .success(let result): return .json(bytes: result.body, status: result.status, headers: result.headers)
            case .failure(let apiError): throw apiError
            }
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
