import NIOConcurrencyHelpers

/// Synchronization's `Mutex`, on a lock ThreadSanitizer sees: the same contract (the value goes
/// in as `sending` and is reached only through `withLock`'s `inout sending`, so the compiler
/// checks what enters and leaves), on `NIOLock`, a pthread mutex. On Linux `Mutex` locks with
/// futexes inside the standard library, which is not instrumented, so ThreadSanitizer saw none
/// of its locking and reported the pool's state it guards as raced (2026-11-28).
///
/// `@unchecked Sendable` for the reason `Mutex` is `Sendable`: the lock orders every access.
final class LockedState<Value>: @unchecked Sendable {
    private let lock = NIOLock()
    private nonisolated(unsafe) var value: Value

    init(_ value: sending Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout sending Value) throws -> sending Result) rethrows -> sending Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
