public import Foundation
import PurseModels

/// Why a call to Purse failed, with the `Request-Id` of the response when there was one (quote it
/// when you ask the server's operator about a failure; it is on every log line of the request).
///
/// ```swift
/// do {
///     try await adapter.detachPaymentMethod(paymentMethodId: id)
/// } catch let error as PurseClientError {
///     switch error.kind {
///     case .cardDeclined(let code): showDecline(code, error.declineCode)
///     case .transport: showOffline()
///     default: showError(error.message)
///     }
/// }
/// ```
public struct PurseClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, in the terms an app acts on.
    public enum Kind: Sendable, Equatable {
        /// The credential is missing, unknown, revoked or expired (HTTP 401), even after the
        /// adapter asked its provider for a new one.
        case unauthenticated
        /// A card was refused (HTTP 402, `card_error`): a decline or a failed check. `code` is
        /// Stripe's `code` (`card_declined`, `incorrect_number`, `expired_card`, ...); the
        /// issuer's reason is in ``PurseClientError/declineCode``.
        case cardDeclined(code: String)
        /// The request was refused (HTTP 400, 403, 404, 409, ...). `param` names the parameter at
        /// fault when there is one, in bracket form (`payment_method_data[billing_details][name]`).
        case invalidRequest(param: String?, message: String)
        /// Too many requests (HTTP 429); retry after ``PurseClientError/retryAfter`` seconds.
        case rateLimited
        /// Purse failed (HTTP 5xx) or answered with something this client cannot read.
        case server
        /// Purse could not be reached: no connection, a timeout, a TLS failure.
        case transport
    }

    /// What went wrong.
    public let kind: Kind
    /// The `Request-Id` header of the response (`req_...`), or nil when no response came.
    public let requestID: String?
    /// The HTTP status, or nil when no response came.
    public let httpStatus: Int?
    /// Stripe's error `type` (`invalid_request_error`, `card_error`, `api_error`, ...).
    public let type: String?
    /// Stripe's error `code` (`resource_missing`, `card_declined`, ...).
    public let code: String?
    /// The issuer's reason for a decline (`generic_decline`, `insufficient_funds`, ...).
    public let declineCode: String?
    /// A sentence for the developer, from the server's envelope. Never holds card data or keys
    /// (the server masks them).
    public let message: String
    /// Seconds to wait before retrying, from a `Retry-After` header.
    public let retryAfter: Int?

    /// Creates an error. The adapter makes these; apps and tests rarely need to.
    public init(
        kind: Kind, requestID: String?, httpStatus: Int? = nil, type: String? = nil, code: String? = nil,
        declineCode: String? = nil, message: String, retryAfter: Int? = nil
    ) {
        self.kind = kind
        self.requestID = requestID
        self.httpStatus = httpStatus
        self.type = type
        self.code = code
        self.declineCode = declineCode
        self.message = message
        self.retryAfter = retryAfter
    }

    /// `PurseClientError(cardDeclined(card_declined), HTTP 402, request req_...): Your card was declined.`
    public var description: String {
        var parts = ["\(kind.name)"]
        if let httpStatus { parts.append("HTTP \(httpStatus)") }
        if let requestID { parts.append("request \(requestID)") }
        return "PurseClientError(\(parts.joined(separator: ", "))): \(message)"
    }

    /// Whether the failure means Purse could not be reached (so a cached answer may stand in).
    public var isTransport: Bool { kind == .transport }
}

extension PurseClientError {
    /// Maps a response that is not a success to its typed error: Stripe's envelope
    /// (`{"error": {"type", "code", "decline_code", "message", "param"}}`) and the HTTP status,
    /// as stripe-python does (401 unauthenticated, 402 card, 429 or a legacy 400 `rate_limit`
    /// rate limited, 5xx server, other 4xx invalid request).
    ///
    /// - Parameters:
    ///   - status: the HTTP status code.
    ///   - body: the response body; anything that is not an envelope still maps by status.
    ///   - header: looks up a response header by name, case-insensitively.
    public static func fromResponse(status: Int, body: Data, header: (String) -> String?) -> PurseClientError {
        let envelope = (try? JSONDecoder().decode(ErrorEnvelope.self, from: body))?.error
        let requestID = header("Request-Id")
        let message = envelope?.message ?? "Purse answered HTTP \(status)."
        let kind: Kind
        switch status {
        case 401:
            kind = .unauthenticated
        case 402:
            kind = .cardDeclined(code: envelope?.code ?? "card_declined")
        case 429:
            kind = .rateLimited
        case 400 where envelope?.code == "rate_limit":
            kind = .rateLimited
        case 500...:
            kind = .server
        case 400..<500 where envelope?.type == "card_error":
            kind = .cardDeclined(code: envelope?.code ?? "card_declined")
        case 400..<500:
            kind = .invalidRequest(param: envelope?.param, message: message)
        default:
            kind = .server
        }
        return PurseClientError(
            kind: kind, requestID: requestID, httpStatus: status, type: envelope?.type, code: envelope?.code,
            declineCode: envelope?.declineCode, message: message, retryAfter: header("Retry-After").flatMap { Int($0) }
        )
    }

    /// The error for a request that got no response.
    static func transport(_ error: any Error) -> PurseClientError {
        PurseClientError(kind: .transport, requestID: nil, message: "Purse could not be reached: \(error.localizedDescription)")
    }

    /// The error for a success response this client cannot read.
    static func unreadable(status: Int, requestID: String?, type: String) -> PurseClientError {
        PurseClientError(
            kind: .server, requestID: requestID, httpStatus: status,
            message: "Purse answered HTTP \(status) with a body that is not a \(type)."
        )
    }

    /// The error a setup intent recorded when its confirmation failed after the request that
    /// started it (a failed 3D Secure authentication), read when the app finishes the setup.
    static func setupFailed(_ failure: SetupError, requestID: String?) -> PurseClientError {
        let kind: Kind =
            failure.type == "card_error"
            ? .cardDeclined(code: failure.code ?? "card_declined")
            : .invalidRequest(param: failure.param, message: failure.message)
        return PurseClientError(
            kind: kind, requestID: requestID, httpStatus: 200, type: failure.type, code: failure.code,
            declineCode: failure.declineCode, message: failure.message
        )
    }

    /// `{"error": {...}}`.
    private struct ErrorEnvelope: Decodable {
        let error: Body

        struct Body: Decodable {
            let type: String?
            let code: String?
            let declineCode: String?
            let message: String?
            let param: String?

            enum CodingKeys: String, CodingKey {
                case type, code
                case declineCode = "decline_code"
                case message, param
            }
        }
    }
}

extension PurseClientError.Kind {
    /// `cardDeclined(card_declined)`, `invalidRequest(customer)`, `transport`.
    var name: String {
        switch self {
        case .unauthenticated: "unauthenticated"
        case .cardDeclined(let code): "cardDeclined(\(code))"
        case .invalidRequest(let param, _): "invalidRequest(\(param ?? "-"))"
        case .rateLimited: "rateLimited"
        case .server: "server"
        case .transport: "transport"
        }
    }
}
