/// An error from the Postgres layer, shaped like postgres-nio's `PSQLError`.
///
/// It never holds the values bound to the query. Its `description`, which logs and
/// `String(describing:)` use, says what failed without anything a server message may quote from
/// a row (`invalid input syntax for type uuid: "..."`, a unique violation's detail naming the
/// duplicate value): the kind, the SQLSTATE with its name and the constraint. The server's
/// message and detail are there on request, in ``message``, ``detail`` and `debugDescription`.
public struct PGError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The connection settings cannot be used (a malformed URL, say).
        case invalidConfiguration
        /// Connecting failed, or an open connection was lost (server down, refused, wrong password).
        case connectionFailed
        /// The connection was lost while `COMMIT` ran: the transaction may have committed or not,
        /// and only reading what it wrote can tell.
        case commitOutcomeUnknown
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
        case .connectionFailed, .commitOutcomeUnknown, .poolTimeout, .poolClosed: return true
        case .server:
            // queryCanceled here is the statement time limit's (a caller's own cancel is a
            // CancellationError): the database is too slow now.
            return sqlState?.isConnectionClass == true || sqlState == .cannotConnectNow
                || sqlState == .adminShutdown || sqlState == .queryCanceled
        case .invalidConfiguration, .decoding: return false
        }
    }

    /// True when the server gave up on a transaction because another held what it needed (a
    /// serialization failure, a deadlock, a lock it may not wait for): running it again may succeed.
    public var isTransientConflict: Bool {
        kind == .server && (sqlState == .serializationFailure || sqlState == .deadlockDetected || sqlState == .lockNotAvailable)
    }

    public var description: String {
        var text = "PGError.\(kind)"
        if let sqlState {
            text += ": SQLSTATE \(sqlState.code)" + (sqlState.name.map { " (\($0))" } ?? "")
        } else if kind != .server {
            // Our own words (a pool timeout, a lost connection): no row values in them.
            text += ": \(message)"
        }
        if let constraint { text += " [constraint \(constraint)]" }
        return text
    }

    /// Everything, the server's message and detail included: for a developer's eyes, not a log.
    public var debugDescription: String {
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
    public static let lockNotAvailable = SQLState("55P03")
    public static let inFailedTransaction = SQLState("25P02")
    public static let queryCanceled = SQLState("57014")
    public static let adminShutdown = SQLState("57P01")
    public static let cannotConnectNow = SQLState("57P03")
    public static let undefinedTable = SQLState("42P01")
    public static let invalidTextRepresentation = SQLState("22P02")

    /// The condition name PostgreSQL gives the code (Appendix A), for the codes Purse meets.
    public var name: String? {
        switch code {
        case "23505": "unique_violation"
        case "23503": "foreign_key_violation"
        case "23514": "check_violation"
        case "23502": "not_null_violation"
        case "40001": "serialization_failure"
        case "40P01": "deadlock_detected"
        case "55P03": "lock_not_available"
        case "25P02": "in_failed_sql_transaction"
        case "57014": "query_canceled"
        case "57P01": "admin_shutdown"
        case "57P03": "cannot_connect_now"
        case "42P01": "undefined_table"
        case "22P02": "invalid_text_representation"
        case "22021": "character_not_in_repertoire"
        case "08006": "connection_failure"
        case "53300": "too_many_connections"
        case "P0001": "raise_exception"
        default: nil
        }
    }

    /// Class 08: connection exceptions.
    public var isConnectionClass: Bool { code.hasPrefix("08") }
    /// Class 23: integrity constraint violations.
    public var isIntegrityViolation: Bool { code.hasPrefix("23") }

    public var description: String { code }
}
