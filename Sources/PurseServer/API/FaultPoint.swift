#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A test-only way to kill the server at a chosen point of a request with an idempotency key, so
/// the fault suite (`Tests/reliability/exactly_once.py`) can hit windows too narrow to hit from
/// outside: after the request's work and before its commit, or after the commit and before the
/// response. Set with `PURSE_TEST_FAULT=<point>:<probability>` (`after-commit:0.02`); only debug
/// builds read it, so a release build has no fault point at all.
struct FaultPoint: Sendable {
    enum Point: String, Sendable {
        case beforeCommit = "before-commit"
        case afterCommit = "after-commit"
    }

    let point: Point
    /// The chance that one request reaching the point ends the process there.
    let probability: Double

    /// The fault point the environment asks for; nil unless this is a debug build.
    static func fromEnvironment() -> FaultPoint? {
        #if DEBUG
        guard let value = getenv("PURSE_TEST_FAULT").map({ String(cString: $0) }) else { return nil }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let point = Point(rawValue: String(parts[0])), let probability = Double(parts[1]) else {
            fatalError("PURSE_TEST_FAULT must be before-commit:<probability> or after-commit:<probability>, not \(value)")
        }
        return FaultPoint(point: point, probability: probability)
        #else
        return nil
        #endif
    }

    /// Kills the process with SIGKILL, as an operator's `kill -9` or the kernel's OOM killer would,
    /// when `point` is this fault point and the draw says so. Says so on stderr first, so the
    /// suite can count which window each kill hit.
    func reached(_ point: Point) {
        guard point == self.point, Double.random(in: 0..<1) < probability else { return }
        let message = Array("purse: test fault point \(point.rawValue) reached, killing the process\n".utf8)
        _ = message.withUnsafeBufferPointer { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        kill(getpid(), SIGKILL)
    }
}
