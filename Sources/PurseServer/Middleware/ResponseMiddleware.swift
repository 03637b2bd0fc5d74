import Hummingbird
import Logging
import PurseCore
import PurseModels

/// The outermost middleware: turns every error into Stripe's envelope, puts `Request-Id` on every
/// response, and writes one access-log line per request.
struct ResponseMiddleware: RouterMiddleware {
    typealias Context = PurseRequestContext

    func handle(
        _ request: Request,
        context: Context,
        next: @concurrent (Request, Context) async throws -> Response
    ) async throws -> Response {
        let started = ContinuousClock.now
        var response: Response
        var version: String?
        do {
            version = try StripeVersion.parse(request.headers[.stripeVersion])
            response = try await next(request, context)
        } catch {
            response = .error(Self.apiError(for: error, request: request, context: context))
        }
        response.headers[.requestID] = context.requestID
        response.headers[.stripeVersion] = version ?? RequestInfo.defaultAPIVersion
        let elapsed = ContinuousClock.now - started
        context.logger.info(
            "request",
            metadata: [
                "method": .string(request.method.rawValue),
                "path": .string(Self.loggable(request.uri.path)),
                "status": .stringConvertible(response.status.code),
                "duration_ms": .string(Self.milliseconds(elapsed)),
            ]
        )
        return response
    }

    /// The one place errors become API errors. Anything unexpected is a 500 whose detail goes to
    /// the log only.
    static func apiError(for error: any Error, request: Request, context: Context) -> APIError {
        switch error {
        case let error as APIError:
            return error
        case let error as PurseError:
            return APIError(error)
        case let error as HTTPError where error.status == .notFound || error.status == .methodNotAllowed:
            return .unrecognizedURL(method: request.method, path: request.uri.path)
        case let error as DatabaseError:
            switch error {
            case .unavailable:
                context.logger.warning("database unavailable", metadata: ["error": .string(error.description)])
                return .databaseUnavailable
            case .outcomeUnknown:
                context.logger.warning("database lost during a commit", metadata: ["error": .string(error.description)])
                return .commitOutcomeUnknown
            case .refused(let refusal, _):
                // A race the checks before it did not foresee: the domain's answer, not a 500.
                context.logger.info("database refusal answered as a domain error", metadata: ["error": .string(error.description)])
                return APIError(refusal)
            }
        case is CancellationError:
            return .databaseUnavailable
        default:
            return unexpected(error, context: context)
        }
    }

    /// A 500, the detail in the log only.
    private static func unexpected(_ error: any Error, context: Context) -> APIError {
        context.logger.error("unexpected error", metadata: ["error": .string(String(describing: error))])
        return .unexpected(requestID: context.requestID)
    }

    /// The path as logged: the token of an authentication, verification or test-bank page is a
    /// credential, so it is masked.
    static func loggable(_ path: String) -> String {
        // A portal session's URL: its id stays, the token and what follows it do not.
        if path.hasPrefix("/p/session/") {
            let id = path.dropFirst("/p/session/".count).prefix { $0 != "/" }
            return "/p/session/\(id)/****"
        }
        for marker in ["/authenticate/", "/verify_microdeposits/", "/test_bank/"] {
            if let range = path.range(of: marker) { return path[..<range.upperBound] + "****" }
        }
        return path
    }

    private static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let hundredths = (seconds * 1_000_000 + attoseconds / 1_000_000_000_000) / 10
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
