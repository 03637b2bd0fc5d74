import Postgres
import PurseCore

extension PGError {
    /// This error in domain terms, or nil when it is not the domain's to answer (a bug, a schema
    /// the binary does not expect: the server answers 500). The one place SQLSTATEs become domain
    /// errors; ``PostgresDatabase`` applies it to every error a unit of work ends with, so no
    /// database race is a 500 and no service needs to know the driver.
    var databaseError: DatabaseError? {
        if kind == .commitOutcomeUnknown { return .outcomeUnknown(reason: description) }
        if isUnavailable { return .unavailable(reason: description) }
        guard let refusal else { return nil }
        return .refused(refusal, reason: description)
    }

    /// What a race or a constraint the checks before it did not foresee means to the caller.
    private var refusal: PurseError? {
        if isTransientConflict {
            return PurseError(
                .conflict, code: "lock_timeout",
                message: "This object cannot be accessed right now because another API request is accessing it. "
                    + "Retry the request shortly; it changed nothing."
            )
        }
        guard kind == .server, let sqlState else { return nil }
        switch sqlState {
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
