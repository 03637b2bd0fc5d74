import NIOConcurrencyHelpers
import NIOCore

/// The per-request deadline (`--request-timeout`): a request still running at its deadline is
/// cancelled, which cancels the statement it waits on (PostgreSQL gets a cancel request) or its
/// wait for a connection. A request that stops within a short grace answers with its own error
/// (the statement's refusal, a commit's unknown outcome), or with ``APIError/deadlineExceeded(_:)``
/// when it stopped at a wait. One that does not (its database vanished without closing the
/// socket, so not even the cancel arrives) is left to finish on its own and answered at once
/// with ``APIError/deadlineExceededOutcomeUnknown(_:)``: the client is not held for the
/// kernel's TCP timeouts, and a retry with the same idempotency key learns what happened.
struct RequestDeadline: Sendable {
    let limit: Duration
    /// How long a cancelled request has to stop before the answer goes without it.
    let grace: Duration
    /// Where the timers run: one scheduled task per request on an event loop, far cheaper
    /// than a sleeping task.
    let timerLoop: any EventLoop

    func run<Result: Sendable>(_ body: @escaping @Sendable () async throws -> Result) async throws -> Result {
        let outcome = Outcome<Result>(limit: limit)
        let work = Task {
            do {
                outcome.finish(.success(try await body()))
            } catch {
                outcome.finish(.failure(error))
            }
        }
        let (limit, grace, timerLoop) = (self.limit, self.grace, self.timerLoop)
        // One timer on the common path; the grace's is set only once the deadline has passed,
        // and does nothing if the work finished meanwhile.
        let deadline = timerLoop.scheduleTask(in: TimeAmount(limit)) {
            outcome.passDeadline()
            work.cancel()
            timerLoop.scheduleTask(in: TimeAmount(grace)) {
                outcome.finish(.failure(APIError.deadlineExceededOutcomeUnknown(limit)))
            }
        }
        defer { deadline.cancel() }
        return try await withTaskCancellationHandler {
            try await outcome.value()
        } onCancel: {
            work.cancel()
        }
    }

    /// The first result wins; the waiter, if any, is resumed with it.
    final class Outcome<Value: Sendable>: Sendable {
        private struct State {
            var result: Swift.Result<Value, any Error>?
            var waiter: CheckedContinuation<Value, any Error>?
            var deadlinePassed = false
        }

        private let state = NIOLockedValueBox(State())
        private let limit: Duration

        init(limit: Duration) {
            self.limit = limit
        }

        func passDeadline() {
            state.withLockedValue { $0.deadlinePassed = true }
        }

        func finish(_ result: Swift.Result<Value, any Error>) {
            let resumed = state.withLockedValue { state -> (CheckedContinuation<Value, any Error>, Swift.Result<Value, any Error>)? in
                guard state.result == nil else { return nil }
                // Stopped at a wait by the deadline: no statement was cut short.
                var result = result
                if state.deadlinePassed, case .failure(let error) = result, error is CancellationError {
                    result = .failure(APIError.deadlineExceeded(limit))
                }
                state.result = result
                guard let waiter = state.waiter else { return nil }
                state.waiter = nil
                return (waiter, result)
            }
            if let (waiter, result) = resumed { waiter.resume(with: result) }
        }

        func value() async throws -> Value {
            try await withCheckedThrowingContinuation { continuation in
                let ready = state.withLockedValue { state -> Swift.Result<Value, any Error>? in
                    if let result = state.result { return result }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        }
    }
}
