import Foundation

/// How much slower than usual this run's code is: `PURSE_TEST_TIME_SCALE`, 1 when unset.
/// `scripts/tsan` sets it, since ThreadSanitizer slows everything several times over and a test
/// then waits longer for a database slot (``DatabaseSlots``) before its own work starts. The
/// tests' hang backstops (`.timeLimit`) scale with it; what a test measures does not.
public enum TestTimeScale {
    public static let factor: Int = {
        guard let text = ProcessInfo.processInfo.environment["PURSE_TEST_TIME_SCALE"] else { return 1 }
        guard let value = Int(text), value >= 1 else {
            fatalError("PURSE_TEST_TIME_SCALE must be a whole number of at least 1, not \(text)")
        }
        return value
    }()

    /// `minutes`, scaled: for `.timeLimit(.minutes(TestTimeScale.minutes(5)))`.
    public static func minutes(_ minutes: Int) -> Int {
        minutes * factor
    }
}
