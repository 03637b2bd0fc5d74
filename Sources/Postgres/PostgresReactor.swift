#if os(Linux)
import CEpoll
import Foundation
import Synchronization

/// Waits for the answers to single statements sent from async code, all on one thread.
///
/// The caller writes its statement to the connection's socket itself and suspends; this thread
/// waits on every such socket at once (epoll) and resumes each caller when its answer is in.
/// A lone statement so costs no hop to one of the pool's threads and back, which was a fifth
/// to a third of the CPU a small read spent. Under load one wake-up here can collect
/// several answers.
final class PostgresReactor: Sendable {
    private let epoll: Int32
    /// Written to stop the thread.
    private let stopEvent: Int32
    private let state = Mutex(State())

    private struct State {
        /// Callers waiting for an answer, by their connection's socket.
        var waiters: [Int32: Waiter] = [:]
        /// Set by `stop()`, so a second call writes to no descriptor the first one closed.
        var isStopping = false
        var isStopped = false
    }

    private struct Waiter {
        let connection: PostgresConnection
        let continuation: CheckedContinuation<PostgresRows, any Error>
    }

    /// Starts the thread; nil when the system refuses an epoll instance or an eventfd.
    init?() {
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { return nil }
        let stopEvent = eventfd(0, Int32(EFD_CLOEXEC))
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.fd = stopEvent
        guard stopEvent >= 0, epoll_ctl(epoll, EPOLL_CTL_ADD, stopEvent, &event) == 0 else {
            for descriptor in [epoll, stopEvent] where descriptor >= 0 { close(descriptor) }
            return nil
        }
        self.epoll = epoll
        self.stopEvent = stopEvent
        Thread { [self] in run() }.start()
    }

    /// Sends `query` on `connection` as the prepared statement `name`
    /// (``PostgresConnection/readyStatement(for:)``) and returns its rows once they have arrived.
    func answer(to query: PostgresQuery, named name: String, on connection: PostgresConnection) async throws -> PostgresRows {
        try await withCheckedThrowingContinuation { continuation in
            do {
                try connection.send(query, named: name)
            } catch {
                continuation.resume(throwing: error)
                return
            }
            let socket = connection.socket
            let registered = state.withLock { state in
                if state.isStopped { return false }
                state.waiters[socket] = Waiter(connection: connection, continuation: continuation)
                return true
            }
            guard registered else {
                continuation.resume(throwing: PGError(.poolClosed, message: "The connection pool is closed"))
                return
            }
            if !arm(socket) { fail(socket) }
        }
    }

    /// Stops the thread. Callers still waiting (there are none once the pool has its
    /// connections back) fail as a closed pool's do.
    func stop() {
        state.withLock { state in
            // Under the lock: the thread closes the descriptor only after setting `isStopped`.
            guard !state.isStopping, !state.isStopped else { return }
            state.isStopping = true
            _ = eventfd_write(stopEvent, 1)
        }
    }

    /// Asks epoll for one readiness report on `socket`: a socket is watched only while an
    /// answer is awaited on it, so the pool's threads can use the connection in between.
    private func arm(_ socket: Int32) -> Bool {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue | EPOLLONESHOT.rawValue
        event.data.fd = socket
        if epoll_ctl(epoll, EPOLL_CTL_MOD, socket, &event) == 0 { return true }
        // First use of this socket (a new connection, perhaps reusing a closed one's number).
        return errno == ENOENT && epoll_ctl(epoll, EPOLL_CTL_ADD, socket, &event) == 0
    }

    /// Fails the caller waiting on `socket`. Its statement may still be in flight, so the
    /// connection is not reused (``PostgresConnection/isUsable`` is false until the answer is read).
    private func fail(_ socket: Int32) {
        let message = "Cannot wait for the database's answer: \(String(cString: strerror(errno)))"
        let waiter = state.withLock { $0.waiters.removeValue(forKey: socket) }
        waiter?.continuation.resume(throwing: PGError(.connectionFailed, message: message))
    }

    private func run() {
        Thread.current.name = "PG-reactor"
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        while true {
            let count = epoll_wait(epoll, &events, Int32(events.count), -1)
            if count < 0 {
                if errno == EINTR { continue }
                break
            }
            for event in events[..<Int(count)] {
                let socket = event.data.fd
                if socket == stopEvent {
                    shutDown()
                    return
                }
                guard let waiter = state.withLock({ $0.waiters[socket] }) else { continue }
                guard let outcome = waiter.connection.readAnswer() else {
                    if !arm(socket) { fail(socket) }
                    continue
                }
                // Removed before resuming: the resumed caller may at once lease the connection
                // again and wait on the same socket. A lost connection's socket is closed by
                // now, and its number may already be another connection's: remove only our own.
                state.withLock { state in
                    if state.waiters[socket]?.connection === waiter.connection { state.waiters[socket] = nil }
                }
                waiter.continuation.resume(with: outcome)
            }
        }
        shutDown()
    }

    private func shutDown() {
        let waiters = state.withLock { state in
            state.isStopped = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters {
            waiter.continuation.resume(throwing: PGError(.poolClosed, message: "The connection pool is closed"))
        }
        for descriptor in [epoll, stopEvent] { close(descriptor) }
    }
}
#endif
