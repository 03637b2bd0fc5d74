#if os(Linux)
/// Waits for a connection's socket through the process's ``EpollReactor``: the mechanism on
/// Linux (see ``SocketWaiting``).
final class EpollSocketReadiness: SocketWaiting {
    private let reactor: EpollReactor
    private let registration: EpollRegistration

    init?(socket: Int32) {
        guard case .success(let reactor) = EpollReactor.shared,
            let registration = reactor.register(duplicateOf: socket)
        else { return nil }
        self.reactor = reactor
        self.registration = registration
    }

    deinit {
        stop()
    }

    func wait(readable: Bool = true, writable: Bool = false, timeout: Duration? = nil) async throws -> SocketReadinessOutcome {
        try await reactor.wait(for: registration, readable: readable, writable: writable, timeout: timeout)
    }

    func stop() {
        reactor.deregister(registration)
    }
}
#endif
