import NIOCore

/// When a run counts: operations that start after `measureFrom` and finish by `measureUntil` are
/// measured; those before are the warm-up. A run with an operation limit measures every one.
struct RunWindow: Sendable {
    let measureFrom: NIODeadline
    let measureUntil: NIODeadline
    /// Operations each connection makes before it stops, or nil to run until `measureUntil`.
    let operationLimit: Int?

    func counts(startedAt start: NIODeadline, finishedAt end: NIODeadline) -> Bool {
        operationLimit != nil || (start >= measureFrom && end <= measureUntil)
    }

    func isOver(at now: NIODeadline, operations: Int) -> Bool {
        if let operationLimit { return operations >= operationLimit }
        return now >= measureUntil
    }
}
