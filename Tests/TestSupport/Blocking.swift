import Dispatch

/// Runs blocking work (sockets, child processes) on a Dispatch thread and awaits it, so it never
/// holds one of the few cooperative threads the in-process servers under test also need.
public enum Blocking {
    public static func run<Result: Sendable>(_ work: @escaping @Sendable () throws -> Result) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Swift.Result { try work() })
            }
        }
    }
}
