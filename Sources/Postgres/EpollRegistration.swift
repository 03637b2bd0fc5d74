#if os(Linux)
import CEpoll
import NIOConcurrencyHelpers

/// A socket the ``EpollReactor`` watches: the reactor's duplicate of it, and the wait that armed
/// it, if any. Its address is what its events carry.
final class EpollRegistration: Sendable {
    let descriptor: Int32
    let state: NIOLockedValueBox<State>

    struct State {
        var waiter: CheckedContinuation<SocketReadinessOutcome, any Error>?
        var waitsForReading = false
        /// Bumped by every wait, so that a late deadline cannot end a later wait.
        var generation: UInt64 = 0
        /// A far deadline of the wait, kept here for the reactor's periodic scan.
        var deadline: ContinuousClock.Instant?
        var closed = false
    }

    init(descriptor: Int32) {
        self.descriptor = descriptor
        state = NIOLockedValueBox(State())
    }

    /// Resumes the wait an event ends: a socket in error or hung up is reported readable, so
    /// that libpq's read finds out. No wait: it timed out or closed since it armed the socket.
    func fire(_ events: UInt32) {
        let readEvents = EPOLLIN.rawValue | EPOLLERR.rawValue | EPOLLHUP.rawValue | EPOLLRDHUP.rawValue
        let ended = state.withLockedValue { state -> (CheckedContinuation<SocketReadinessOutcome, any Error>, SocketReadinessOutcome)? in
            guard let waiter = state.waiter else { return nil }
            state.waiter = nil
            return (waiter, state.waitsForReading && events & readEvents != 0 ? .readable : .writable)
        }
        if let (waiter, outcome) = ended { waiter.resume(returning: outcome) }
    }

    /// Ends the wait if its far deadline has passed by `now` (the reactor's periodic scan).
    func endIfPast(_ now: ContinuousClock.Instant) {
        let waiter = state.withLockedValue { state -> CheckedContinuation<SocketReadinessOutcome, any Error>? in
            guard let deadline = state.deadline, deadline <= now, let waiter = state.waiter else { return nil }
            state.waiter = nil
            state.deadline = nil
            return waiter
        }
        waiter?.resume(returning: .timedOut)
    }

    /// Ends wait `generation` with `outcome`, if it is still waiting.
    func end(generation: UInt64, with outcome: Result<SocketReadinessOutcome, PGError>) {
        let waiter = state.withLockedValue { state -> CheckedContinuation<SocketReadinessOutcome, any Error>? in
            guard state.generation == generation else { return nil }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(with: outcome.mapError { $0 })
    }
}
#endif
