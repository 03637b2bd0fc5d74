import Foundation
public import Testing

/// How much slower than usual this run's code is: `PURSE_TEST_TIME_SCALE`, 1 when unset.
/// `scripts/tsan` sets it, since ThreadSanitizer slows everything several times over and a test
/// then waits longer for a database slot (``DatabaseSlots``) before its own work starts. The
/// tests' hang backstops (``Testing/Trait/scaledTimeLimit(minutes:)``) scale with it; what a test
/// measures does not.
enum TestTimeScale {
    static let factor: Int = {
        guard let text = ProcessInfo.processInfo.environment["PURSE_TEST_TIME_SCALE"] else { return 1 }
        guard let value = Int(text), value >= 1 else {
            fatalError("PURSE_TEST_TIME_SCALE must be a whole number of at least 1, not \(text)")
        }
        return value
    }()
}

extension Trait where Self == TimeLimitTrait {
    /// A hang backstop of `minutes`, times ``TestTimeScale/factor``.
    public static func scaledTimeLimit(minutes: Int) -> Self {
        .timeLimit(.minutes(minutes * TestTimeScale.factor))
    }
}
