/// An error from the Postgres layer.
///
/// It carries what PostgreSQL said (SQLSTATE, message, detail, constraint) and never the values
/// bound to the query, so it is safe to log: bind values may hold secrets or personal data.
public struct PGError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The connection settings cannot be used (a malformed URL, say).
        case invalidConfiguration
        /// Connecting failed, or an open connection was lost (server down, refused, wrong password).
        case connectionFailed
        /// The server rejected a statement; `sqlState` says why.
        case server
        /// No connection became free within the pool's checkout timeout.
        case poolTimeout
        /// The pool has been closed.
        case poolClosed
        /// A column could not be read as the requested Swift type.
        case decoding
    }

    public var kind: Kind
    /// The server's message, or ours for client-side failures.
    public var message: String
    /// The five-character SQLSTATE code, for `.server` errors.
    public var sqlState: SQLState?
    public var detail: String?
    public var constraint: String?

    public init(
        _ kind: Kind,
        message: String,
        sqlState: SQLState? = nil,
        detail: String? = nil,
        constraint: String? = nil
    ) {
        self.kind = kind
        self.message = message
        self.sqlState = sqlState
        self.detail = detail
        self.constraint = constraint
    }

    /// True when the database itself is unavailable, so retrying later may succeed.
    public var isUnavailable: Bool {
        switch kind {
        case .connectionFailed, .poolTimeout, .poolClosed: return true
        case .server:
            return sqlState?.isConnectionClass == true || sqlState == .cannotConnectNow
                || sqlState == .adminShutdown
        case .invalidConfiguration, .decoding: return false
        }
    }

    public var description: String {
        var text = "PGError.\(kind): \(message)"
        if let sqlState { text += " (SQLSTATE \(sqlState.code))" }
        if let constraint { text += " [constraint \(constraint)]" }
        if let detail { text += " — \(detail)" }
        return text
    }
}

/// A PostgreSQL SQLSTATE code, with names for the ones Purse acts on.
public struct SQLState: Sendable, Hashable, CustomStringConvertible {
    public let code: String

    public init(_ code: String) { self.code = code }

    public static let uniqueViolation = SQLState("23505")
    public static let foreignKeyViolation = SQLState("23503")
    public static let checkViolation = SQLState("23514")
    public static let notNullViolation = SQLState("23502")
    public static let serializationFailure = SQLState("40001")
    public static let deadlockDetected = SQLState("40P01")
    public static let inFailedTransaction = SQLState("25P02")
    public static let queryCanceled = SQLState("57014")
    public static let adminShutdown = SQLState("57P01")
    public static let cannotConnectNow = SQLState("57P03")
    public static let undefinedTable = SQLState("42P01")
    public static let invalidTextRepresentation = SQLState("22P02")

    /// Class 08: connection exceptions.
    public var isConnectionClass: Bool { code.hasPrefix("08") }
    /// Class 23: integrity constraint violations.
    public var isIntegrityViolation: Bool { code.hasPrefix("23") }

    public var description: String { code }
}
