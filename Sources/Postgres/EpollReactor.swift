#if os(Linux)
import CEpoll
import Foundation
import Glibc
import NIOConcurrencyHelpers

/// One thread that waits, with epoll, on the sockets of every PostgreSQL connection in the
/// process, and resumes the task waiting on each from there (see ``SocketWaiting`` for why not
/// Dispatch on Linux). Its thread starts with the first registration and lives as long as the
/// process, as libdispatch's own manager thread does.
///
/// Each socket is registered once, disarmed, and armed for one event by each wait
/// (`EPOLLONESHOT`): an event finds at most the one wait that armed it. A statement's wait and
/// its event take only their own registration's lock; the reactor's lock is for waits with a
/// timeout and for registrations coming and going, so connections do not contend for long.
///
/// Most timeouts are seconds away (a request's deadline, ``PostgresDeadline``), and most waits end
/// long before them. Those further than ``scanInterval`` are kept on their registration, under
/// the lock the wait takes anyway, and the thread, which never sleeps longer than
/// ``scanInterval``, ends the ones past due on its next scan: at most that late, and at no cost
/// to the reactor's lock. Only nearer timeouts are kept, and woken for, by the thread's lock.
final class EpollReactor: Sendable {
    /// The process's reactor, or why the system refused one.
    static let shared = Result { try EpollReactor() }

    private let epoll: Int32
    /// An eventfd that interrupts the thread's sleep when a wait's deadline comes before its end.
    private let wakeup: Int32
    private let state: NIOLockedValueBox<State>

    /// The events of the wake-up carry no registration's address.
    private static let wakeupTag: UInt64 = 0
    /// How often the thread scans the registrations for far deadlines past due, and so the
    /// longest it sleeps in `epoll_wait`.
    static let scanInterval: Duration = .milliseconds(250)

    private struct State {
        var threadStarted = false
        /// Every registration still watched, for the scan of far deadlines.
        var registered: [ObjectIdentifier: EpollRegistration] = [:]
        var nextScan = ContinuousClock.now
        /// Waits with a deadline, by registration; an entry whose wait has ended is dropped when
        /// its deadline comes.
        var timed: [ObjectIdentifier: TimedWait] = [:]
        /// Registrations removed from epoll, released once the thread has handled every event it
        /// may have fetched for them.
        var removed: [EpollRegistration] = []
        /// Whether the thread is in `epoll_wait` (or about to be), and until when.
        var sleeping = false
        var sleepingUntil = ContinuousClock.now
    }

    private struct TimedWait {
        let registration: EpollRegistration
        let generation: UInt64
        let deadline: ContinuousClock.Instant
    }

    private init() throws {
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { throw Self.systemError("Cannot create an epoll instance") }
        wakeup = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard wakeup >= 0 else {
            close(epoll)
            throw Self.systemError("Cannot create an eventfd")
        }
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.u64 = Self.wakeupTag
        guard epoll_ctl(epoll, EPOLL_CTL_ADD, wakeup, &event) == 0 else {
            close(wakeup)
            close(epoll)
            throw Self.systemError("Cannot watch the reactor's eventfd")
        }
        state = NIOLockedValueBox(State())
    }

    /// Watches a duplicate of `socket`, disarmed until a wait arms it; nil when the system refuses.
    func register(duplicateOf socket: Int32) -> EpollRegistration? {
        let descriptor = dup(socket)
        guard descriptor >= 0 else { return nil }
        let registration = EpollRegistration(descriptor: descriptor)
        var event = epoll_event()
        event.events = EPOLLONESHOT.rawValue
        // Retained here, released by the thread after `deregister` (see `State.removed`).
        event.data.u64 = UInt64(UInt(bitPattern: Unmanaged.passRetained(registration).toOpaque()))
        guard epoll_ctl(epoll, EPOLL_CTL_ADD, descriptor, &event) == 0 else {
            Unmanaged.passUnretained(registration).release()
            close(descriptor)
            return nil
        }
        let startThread = state.withLockedValue { state in
            state.registered[ObjectIdentifier(registration)] = registration
            defer { state.threadStarted = true }
            return !state.threadStarted
        }
        if startThread {
            let thread = Thread { [self] in run() }
            thread.name = "purse-pg-reactor"
            thread.start()
        }
        return registration
    }

    /// Stops watching and closes the duplicate; a wait in progress fails. Safe to call more than
    /// once.
    func deregister(_ registration: EpollRegistration) {
        let (closedNow, waiter) = registration.state.withLockedValue { state -> (Bool, CheckedContinuation<SocketReadinessOutcome, any Error>?) in
            guard !state.closed else { return (false, nil) }
            state.closed = true
            _ = epoll_ctl(epoll, EPOLL_CTL_DEL, registration.descriptor, nil)
            close(registration.descriptor)
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        guard closedNow else { return }
        state.withLockedValue { state in
            state.registered[ObjectIdentifier(registration)] = nil
            state.removed.append(registration)
        }
        waiter?.resume(throwing: Self.closed)
    }

    /// Waits until the socket is readable (or writable, when `writable` is set), or `timeout`
    /// has passed.
    ///
    /// One registration's waits and its ``deregister(_:)`` come one after another, never at
    /// once (one task at a time holds its connection): so the socket is armed outside the
    /// registration's lock. Under it, the event that arming can raise at once would find the
    /// reactor's thread blocked on that lock, which cost a futex wait and wake per statement.
    func wait(for registration: EpollRegistration, readable: Bool, writable: Bool, timeout: Duration?) async throws -> SocketReadinessOutcome {
        try await withCheckedThrowingContinuation { continuation in
            // Stored before arming: the event may arrive at once, and it must find this wait.
            let deadline = timeout.map { ContinuousClock.now + $0 }
            let isFar = timeout.map { $0 > Self.scanInterval * 2 } ?? false
            let generation = registration.state.withLockedValue { state -> UInt64? in
                guard !state.closed else { return nil }
                precondition(state.waiter == nil, "one wait at a time")
                state.waiter = continuation
                state.waitsForReading = readable
                state.generation &+= 1
                state.deadline = isFar ? deadline : nil
                return state.generation
            }
            guard let generation else {
                continuation.resume(throwing: Self.closed)
                return
            }
            var event = epoll_event()
            event.events = EPOLLONESHOT.rawValue | (readable ? EPOLLIN.rawValue | EPOLLRDHUP.rawValue : 0) | (writable ? EPOLLOUT.rawValue : 0)
            event.data.u64 = UInt64(UInt(bitPattern: Unmanaged.passUnretained(registration).toOpaque()))
            guard epoll_ctl(epoll, EPOLL_CTL_MOD, registration.descriptor, &event) == 0 else {
                let error = Self.systemError("Cannot watch the database connection's socket")
                registration.end(generation: generation, with: .failure(error))
                return
            }
            if let deadline, !isFar { addDeadline(deadline, of: registration, generation: generation) }
        }
    }

    /// Has the thread end the wait `generation` of `registration` at `deadline`, waking it if
    /// it sleeps past that.
    private func addDeadline(_ deadline: ContinuousClock.Instant, of registration: EpollRegistration, generation: UInt64) {
        let wakeThread = state.withLockedValue { state -> Bool in
            state.timed[ObjectIdentifier(registration)] = TimedWait(registration: registration, generation: generation, deadline: deadline)
            guard state.sleeping, deadline < state.sleepingUntil else { return false }
            state.sleepingUntil = deadline
            return true
        }
        if wakeThread { _ = eventfd_write(wakeup, 1) }
    }

    /// The thread: waits for events and deadlines, and resumes the waits they end.
    private func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        while true {
            let (timeout, firstDeadline, released) = state.withLockedValue {
                state -> (Int32, ContinuousClock.Instant?, [EpollRegistration]) in
                let first = state.timed.values.lazy.map(\.deadline).min()
                state.sleeping = true
                state.sleepingUntil = first.map { min($0, state.nextScan) } ?? state.nextScan
                defer { state.removed.removeAll() }
                return (Self.milliseconds(until: state.sleepingUntil), first, state.removed)
            }
            // Every event fetched before their removal has been handled.
            for registration in released { Unmanaged.passUnretained(registration).release() }
            let count = events.withUnsafeMutableBufferPointer { buffer in
                epoll_wait(epoll, buffer.baseAddress, Int32(buffer.count), timeout)
            }
            state.withLockedValue { $0.sleeping = false }
            if count < 0 {
                // Anything but an interruption is a programming error (a bad descriptor or buffer).
                precondition(errno == EINTR, "epoll_wait failed: \(String(cString: strerror(errno)))")
                continue
            }
            for event in events.prefix(Int(count)) {
                guard event.data.u64 != Self.wakeupTag else {
                    var value: eventfd_t = 0
                    _ = eventfd_read(wakeup, &value)
                    continue
                }
                let address = UnsafeRawPointer(bitPattern: UInt(event.data.u64))!
                Unmanaged<EpollRegistration>.fromOpaque(address).takeUnretainedValue().fire(event.events)
            }
            if let firstDeadline, firstDeadline <= .now { endExpiredWaits() }
            scanIfDue()
        }
    }

    /// Every ``scanInterval``: ends the waits whose far deadline has passed.
    private func scanIfDue() {
        let now = ContinuousClock.now
        let registrations = state.withLockedValue { state -> [EpollRegistration] in
            guard state.nextScan <= now else { return [] }
            state.nextScan = now + Self.scanInterval
            return Array(state.registered.values)
        }
        for registration in registrations { registration.endIfPast(now) }
    }

    /// Ends the waits whose deadline has come.
    private func endExpiredWaits() {
        let now = ContinuousClock.now
        let expired = state.withLockedValue { state -> [TimedWait] in
            let expired = state.timed.values.filter { $0.deadline <= now }
            for timed in expired { state.timed[ObjectIdentifier(timed.registration)] = nil }
            return expired
        }
        // Still armed: a later event finds no wait, or the next wait, which re-arms the socket
        // anyway and rechecks it then.
        for timed in expired { timed.registration.end(generation: timed.generation, with: .success(.timedOut)) }
    }

    /// Milliseconds from now to `deadline`, rounded up so the thread does not wake before it.
    private static func milliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
        let (seconds, attoseconds) = (deadline - .now).components
        guard seconds > 0 || (seconds == 0 && attoseconds > 0) else { return 0 }
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: milliseconds)
    }

    private static let closed = PGError(.connectionFailed, message: "The connection is closed")

    private static func systemError(_ what: String) -> PGError {
        PGError(.connectionFailed, message: "\(what): \(String(cString: strerror(errno)))")
    }
}
#endif
