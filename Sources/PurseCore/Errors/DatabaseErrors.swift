public import Postgres

/// The database's refusals in domain terms: what a race or a constraint the checks before it
/// did not foresee means to the caller. The one place SQLSTATEs become ``PurseError``s; the
/// server applies it to every error a request ends with, so no database race is a 500.
public enum DatabaseErrors {
    /// The domain error `error` stands for, or nil when it is not a refusal (the database away,
    /// a bug: the server answers 503 or 500 as it does).
    public static func translated(_ error: PGError) -> PurseError? {
        if error.isTransientConflict {
            return PurseError(
                .conflict, code: "lock_timeout",
                message: "This object cannot be accessed right now because another API request is accessing it. "
                    + "Retry the request shortly; it changed nothing."
            )
        }
        guard error.kind == .server, let state = error.sqlState else { return nil }
        switch state {
        case .uniqueViolation:
            return PurseError(
                .invalidRequest, code: "resource_already_exists",
                message: "This object already exists: another request created it at the same time."
            )
        case .foreignKeyViolation:
            return PurseError(
                .invalidRequest, code: "resource_missing",
                message: "An object this request refers to no longer exists: another request removed it at the same time."
            )
        default:
            return nil
        }
    }
}
