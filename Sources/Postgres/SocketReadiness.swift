/// Waiting for a connection's socket to become readable or writable, without a thread of its
/// own. Two mechanisms, one per platform family, behind the same calls:
///
/// - Linux: ``EpollSocketReadiness``, one epoll thread for the process that resumes the waiting
///   task itself. libdispatch on Linux hands each source event from its manager thread to a
///   worker thread before the handler runs; that second hop cost a futex wake-up and a context
///   switch per statement (`perf stat` over the benchmark's retrieve workload: 12 system calls
///   and 2.4 context switches per request, against 8.2 and 2.2 with the reactor).
/// - Apple platforms: ``DispatchSocketReadiness``, Dispatch read and write sources, which kqueue
///   delivers to a worker thread directly.
///
/// Both are tested on Linux by the same suite.
protocol SocketWaiting: Sendable {
    /// Watches a duplicate of `socket`, which it owns; nil when the system refuses one.
    init?(socket: Int32)

    /// Waits until the socket is readable (or writable, when `writable` is set), or `timeout`
    /// has passed. One wait at a time: its connection, held by one task, makes sure of that.
    func wait(readable: Bool, writable: Bool, timeout: Duration?) async throws -> SocketReadinessOutcome

    /// Stops watching and closes the duplicate; a wait in progress fails. Safe to call more than
    /// once.
    func stop()
}

/// What a wait on a socket ended with.
enum SocketReadinessOutcome: Sendable, Equatable {
    case readable
    case writable
    case timedOut
}

#if os(Linux)
typealias SocketReadiness = EpollSocketReadiness
#else
typealias SocketReadiness = DispatchSocketReadiness
#endif
