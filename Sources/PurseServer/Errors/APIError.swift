public import HTTPTypes
import PurseCore
public import PurseModels

/// An error as Stripe's API reports it: an HTTP status and the `{"error": {...}}` envelope.
public struct APIError: Error, Sendable {
    public enum Kind: String, Sendable {
        case invalidRequest = "invalid_request_error"
        case card = "card_error"
        case idempotency = "idempotency_error"
        case api = "api_error"
    }

    public var status: HTTPResponse.Status
    public var kind: Kind
    public var code: String?
    public var message: String
    public var param: String?
    public var declineCode: String?
    /// Further fields of the envelope (`setup_intent`, `payment_method`, ...).
    public var extra: JSONObject
    /// Headers the response must carry (`Stripe-Should-Retry`, `Retry-After`, ...).
    public var headers: HTTPFields

    public init(
        status: HTTPResponse.Status,
        kind: Kind,
        code: String? = nil,
        message: String,
        param: String? = nil,
        declineCode: String? = nil,
        extra: JSONObject = JSONObject(),
        headers: HTTPFields = [:]
    ) {
        self.status = status
        self.kind = kind
        self.code = code
        self.message = message
        self.param = param
        self.declineCode = declineCode
        self.extra = extra
        self.headers = headers
    }

    /// The response body.
    public var body: JSONValue {
        var error = JSONObject()
        if let code { error["code"] = .string(code) }
        if let declineCode { error["decline_code"] = .string(declineCode) }
        if let code { error["doc_url"] = .string("https://docs.stripe.com/error-codes/\(code.replacingOccurrences(of: "_", with: "-"))") }
        error["message"] = .string(message)
        if let param { error["param"] = .string(param) }
        for entry in extra { error[entry.key] = entry.value }
        error["type"] = .string(kind.rawValue)
        return ["error": .object(error)]
    }
}

extension APIError {
    /// 404 for a path (or method) no route serves, worded as Stripe words it.
    static func unrecognizedURL(method: HTTPRequest.Method, path: String) -> APIError {
        APIError(
            status: .notFound,
            kind: .invalidRequest,
            message: "Unrecognized request URL (\(method.rawValue): \(path)). Please see https://docs.stripe.com or "
                + "Purse's OpenAPI document at /openapi.json."
        )
    }

    /// 413 for a body over the limit; the connection closes after it, as its body is not read.
    static func bodyTooLarge(limit: Int) -> APIError {
        APIError(
            status: .contentTooLarge,
            kind: .invalidRequest,
            message: "The request body is too large: Purse accepts at most \(limit) bytes.",
            headers: [.connection: "close"]
        )
    }

    /// 499 (nginx's "client closed request") for a client that closed its connection before its
    /// request arrived whole. No one reads the answer; the status keeps such requests apart from
    /// server errors in the log (at info) and the metrics, so a client cannot set off 5xx alerts.
    static let clientClosedRequest = APIError(
        status: HTTPResponse.Status(code: 499, reasonPhrase: "Client Closed Request"),
        kind: .invalidRequest,
        message: "The client closed the connection before its request arrived whole. Nothing was changed.",
        headers: [.connection: "close"]
    )

    /// 429 for a key over its rate limit, as Stripe words it, with when to try again.
    static func rateLimited(retryAfter: Duration) -> APIError {
        let seconds = max(1, Int(retryAfter.components.seconds) + (retryAfter.components.attoseconds > 0 ? 1 : 0))
        return APIError(
            status: .tooManyRequests,
            kind: .invalidRequest,
            code: "rate_limit",
            message: "Too many requests hit the API too quickly with this key. Try again in \(seconds) second\(seconds == 1 ? "" : "s").",
            headers: [.retryAfter: String(seconds)]
        )
    }

    /// 408 for a body that did not arrive within the read timeout; the connection closes after it.
    static func requestTimeout(seconds: Int) -> APIError {
        APIError(
            status: .requestTimeout,
            kind: .invalidRequest,
            message: "The request body did not arrive within \(seconds) seconds. Nothing was changed.",
            headers: [.connection: "close"]
        )
    }

    /// 503 for a request stopped at its deadline (`--request-timeout`) while it waited, for a
    /// database connection, a lock or a statement: nothing was changed; the SDKs retry it.
    static func deadlineExceeded(_ limit: Duration) -> APIError {
        APIError(
            status: .serviceUnavailable,
            kind: .api,
            message: "The request did not finish within \(seconds(limit)) seconds and was stopped. Nothing was changed; retry it shortly.",
            headers: [.stripeShouldRetry: "true"]
        )
    }

    private static func seconds(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000)" : "\(Double(milliseconds) / 1000)"
    }

    /// 503 while PostgreSQL cannot be reached; the SDKs retry it.
    static let databaseUnavailable = APIError(
        status: .serviceUnavailable,
        kind: .api,
        message: "Purse cannot reach its database right now. The request changed nothing; retry it shortly.",
        headers: [.stripeShouldRetry: "true"]
    )

    /// 503 when the database was lost while the request committed: the SDKs retry it, and a
    /// retry with the same `Idempotency-Key` answers with what happened.
    static let commitOutcomeUnknown = APIError(
        status: .serviceUnavailable,
        kind: .api,
        message: "Purse lost its database while this request was being saved, so it may or may not have been applied. "
            + "Retry it with the same Idempotency-Key: the retry answers with its result.",
        headers: [.stripeShouldRetry: "true"]
    )

    /// 500 for what nobody expected; the detail goes only to the log.
    static func unexpected(requestID: String) -> APIError {
        APIError(
            status: .internalServerError,
            kind: .api,
            message: "An unexpected error occurred on Purse's side (request \(requestID)). It has been logged.",
            headers: [.stripeShouldRetry: "false"]
        )
    }
}

extension APIError {
    /// The HTTP face of a domain error.
    init(_ error: PurseError) {
        let (status, kind): (HTTPResponse.Status, Kind) =
            switch error.category {
            case .invalidRequest: (.badRequest, .invalidRequest)
            case .notFound: (.notFound, .invalidRequest)
            case .authentication: (.unauthorized, .invalidRequest)
            case .permission: (.forbidden, .invalidRequest)
            case .card: (HTTPResponse.Status(code: 402, reasonPhrase: "Payment Required"), .card)
            case .idempotency: (.badRequest, .idempotency)
            case .idempotencyInUse: (.conflict, .idempotency)
            case .rateLimited, .conflict: (.tooManyRequests, .invalidRequest)
            }
        self.init(
            status: status, kind: kind, code: error.code, message: error.message, param: error.param,
            declineCode: error.declineCode, extra: error.related,
            headers: error.category == .conflict ? [.stripeShouldRetry: "true"] : [:]
        )
    }
}

extension HTTPField.Name {
    static let requestID = HTTPField.Name("Request-Id")!
    static let stripeShouldRetry = HTTPField.Name("Stripe-Should-Retry")!
    static let stripeVersion = HTTPField.Name("Stripe-Version")!
    static let idempotencyKey = HTTPField.Name("Idempotency-Key")!
    static let idempotentReplayed = HTTPField.Name("Idempotent-Replayed")!
}
