public import PurseModels

/// Why a request was refused or failed, in domain terms. The server turns it into Stripe's
/// error envelope (status, `type`, `code`); the core never speaks HTTP.
public struct PurseError: Error, Sendable, CustomStringConvertible {
    public enum Category: Sendable, Equatable {
        /// Bad input: a wrong, missing or unknown parameter (400).
        case invalidRequest
        /// The object does not exist for this caller (404).
        case notFound
        /// The credential is missing, unknown, revoked or expired (401).
        case authentication
        /// The credential is of the wrong kind for the endpoint (403).
        case permission
        /// A card was refused: validation or a decline (402).
        case card
        /// An idempotency key reused with other parameters or on another endpoint (400).
        case idempotency
        /// An idempotency key whose first request is still running (409).
        case idempotencyInUse
        /// Too many requests for this key (429).
        case rateLimited
        /// Another request holds what this one needs (a deadlock, a lock conflict); retrying
        /// shortly succeeds (429 `lock_timeout`, as Stripe answers, with `Stripe-Should-Retry`).
        case conflict
    }

    public var category: Category
    /// Stripe's error code (`resource_missing`, `card_declined`, ...).
    public var code: String?
    /// A sentence for the developer. Never holds card data or secrets.
    public var message: String
    /// The parameter at fault, in bracket form (`invoice_settings[default_payment_method]`).
    public var param: String?
    public var declineCode: String?
    /// Objects the envelope carries along (`setup_intent`, `payment_method`).
    public var related: JSONObject
    /// True when the request changed state before failing (a declined confirm records its
    /// failure), so an idempotent retry must replay it rather than run again.
    public var isExecutionOutcome: Bool

    public init(
        _ category: Category,
        code: String? = nil,
        message: String,
        param: String? = nil,
        declineCode: String? = nil,
        related: JSONObject = JSONObject(),
        isExecutionOutcome: Bool = false
    ) {
        self.category = category
        self.code = code
        self.message = message
        self.param = param
        self.declineCode = declineCode
        self.related = related
        self.isExecutionOutcome = isExecutionOutcome
    }

    public var description: String {
        "PurseError(\(category), code: \(code ?? "-"), param: \(param ?? "-")): \(message)"
    }
}

extension PurseError {
    /// `Received unknown parameter: a[b]`.
    public static func unknownParameter(_ param: String) -> PurseError {
        PurseError(.invalidRequest, code: "parameter_unknown", message: "Received unknown parameter: \(param)", param: param)
    }

    /// `Missing required param: customer.`
    public static func missingParameter(_ param: String) -> PurseError {
        PurseError(.invalidRequest, code: "parameter_missing", message: "Missing required param: \(param).", param: param)
    }

    /// A parameter whose value is not acceptable; `message` says why.
    public static func invalidParameter(_ param: String, _ message: String, code: String? = nil) -> PurseError {
        PurseError(.invalidRequest, code: code, message: message, param: param)
    }

    /// `No such customer: 'cus_123'`, `resource_missing`: 404 for an object named in the path
    /// (`param` nil or `id`), 400 for one named by a parameter, as Stripe answers.
    public static func noSuch(_ noun: String, _ id: String, param: String? = nil, inPath: Bool? = nil) -> PurseError {
        let inPath = inPath ?? (param == nil || param == "id")
        return PurseError(inPath ? .notFound : .invalidRequest, code: "resource_missing", message: "No such \(noun): '\(id)'", param: param)
    }
}
