/// What a ``Database`` implementation throws in place of its driver's errors when the domain has
/// an answer for them, so that services and the server never need to know the driver. Any other
/// error of the driver (a bug, a schema the binary does not expect) passes through as it is.
public enum DatabaseError: Error, Sendable, CustomStringConvertible {
    /// The database cannot be reached now (down, restarting, no connection free in time):
    /// retrying later may succeed.
    case unavailable(reason: String)
    /// The database was lost while the work committed: it may have been kept or not. Reading
    /// what it wrote tells; for a request, its retry with the same idempotency key does.
    case outcomeUnknown(reason: String)
    /// The database refused the work for a reason that is the domain's to answer: a race or a
    /// constraint the checks before it did not foresee. `refusal` is that answer.
    case refused(PurseError, reason: String)

    /// Whether the database was out of reach, so the same work may succeed later.
    public var isOutOfReach: Bool {
        switch self {
        case .unavailable, .outcomeUnknown: true
        case .refused: false
        }
    }

    /// The driver's account of the error, for the log (it holds no row values).
    public var description: String {
        switch self {
        case .unavailable(let reason), .outcomeUnknown(let reason), .refused(_, let reason): reason
        }
    }
}
