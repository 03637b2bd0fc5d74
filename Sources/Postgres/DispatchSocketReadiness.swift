import Dispatch
import Foundation
import NIOConcurrencyHelpers
import Synchronization

/// Waits for a connection's socket through a Dispatch read source and write source (kqueue on
/// Apple platforms), which resume the waiting task: the mechanism there (see ``SocketWaiting``).
/// One serial queue serves every connection's sources, as one reactor thread would: a handler
/// only resumes a continuation.
///
/// The sources watch a duplicate of libpq's descriptor, which they own and close in their
/// cancellation handler. libpq may then close its own descriptor whenever it likes (a lost
/// connection, `PQfinish`) without ever leaving a source watching a closed or reused number.
final class DispatchSocketReadiness: SocketWaiting {
    /// The queue every source's handler runs on.
    static let queue = DispatchQueue(label: "purse.postgres.readiness")

    // `nonisolated(unsafe)`: Dispatch sources are thread-safe objects (resume, suspend and cancel
    // may come from any thread), though Dispatch does not mark them Sendable on Linux; every
    // call on them here is made under `state`'s lock besides.
    private nonisolated(unsafe) let read: any DispatchSourceRead
    private nonisolated(unsafe) let write: any DispatchSourceWrite
    private let state: NIOLockedValueBox<State>

    private struct State {
        var waiter: CheckedContinuation<SocketReadinessOutcome, any Error>?
        /// A source is resumed (watching) only while a wait wants it.
        var readArmed = false
        var writeArmed = false
        var closed = false
        /// Bumped by every wait, so a late timeout cannot end a later wait.
        var generation: UInt64 = 0
    }

    init?(socket: Int32) {
        let descriptor = dup(socket)
        guard descriptor >= 0 else { return nil }
        read = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: Self.queue)
        write = DispatchSource.makeWriteSource(fileDescriptor: descriptor, queue: Self.queue)
        state = NIOLockedValueBox(State())
        // The duplicate closes once both sources are cancelled: the last handler closes it.
        let remaining = Atomic<Int>(2)
        let closeWhenBothCancelled: @Sendable () -> Void = {
            if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { close(descriptor) }
        }
        read.setCancelHandler(handler: closeWhenBothCancelled)
        write.setCancelHandler(handler: closeWhenBothCancelled)
        read.setEventHandler { [weak self] in self?.fired(.readable) }
        write.setEventHandler { [weak self] in self?.fired(.writable) }
        // Activated, then suspended until a wait arms them.
        read.activate()
        write.activate()
        read.suspend()
        write.suspend()
    }

    deinit {
        stop()
    }

    func wait(readable: Bool = true, writable: Bool = false, timeout: Duration? = nil) async throws -> SocketReadinessOutcome {
        try await withCheckedThrowingContinuation { continuation in
            let generation = state.withLockedValue { state -> UInt64? in
                guard !state.closed else { return nil }
                precondition(state.waiter == nil, "one wait at a time")
                state.waiter = continuation
                state.generation &+= 1
                if readable, !state.readArmed {
                    state.readArmed = true
                    read.resume()
                }
                if writable, !state.writeArmed {
                    state.writeArmed = true
                    write.resume()
                }
                return state.generation
            }
            guard let generation else {
                continuation.resume(throwing: PGError(.connectionFailed, message: "The connection is closed"))
                return
            }
            if let timeout {
                Self.queue.asyncAfter(deadline: .now() + .nanoseconds(Int(Self.nanoseconds(timeout)))) { [weak self] in
                    self?.end(generation: generation, with: .timedOut)
                }
            }
        }
    }

    func stop() {
        let waiter = state.withLockedValue { state -> CheckedContinuation<SocketReadinessOutcome, any Error>? in
            guard !state.closed else { return nil }
            state.closed = true
            // A suspended source delivers its cancellation only once resumed.
            if !state.readArmed { read.resume() }
            if !state.writeArmed { write.resume() }
            state.readArmed = false
            state.writeArmed = false
            read.cancel()
            write.cancel()
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(throwing: PGError(.connectionFailed, message: "The connection is closed"))
    }

    private func fired(_ outcome: SocketReadinessOutcome) {
        let waiter = state.withLockedValue { state -> CheckedContinuation<SocketReadinessOutcome, any Error>? in
            guard !state.closed else { return nil }
            disarm(&state)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: outcome)
    }

    private func end(generation: UInt64, with outcome: SocketReadinessOutcome) {
        let waiter = state.withLockedValue { state -> CheckedContinuation<SocketReadinessOutcome, any Error>? in
            guard !state.closed, state.generation == generation, state.waiter != nil else { return nil }
            disarm(&state)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: outcome)
    }

    /// Suspends what is armed: a source watches only while a wait wants it.
    private func disarm(_ state: inout State) {
        if state.readArmed {
            state.readArmed = false
            read.suspend()
        }
        if state.writeArmed {
            state.writeArmed = false
            write.suspend()
        }
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
