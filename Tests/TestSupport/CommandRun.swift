import Foundation
import LocalPostgres
import Postgres

/// A finished run of a command: its exit status and what it printed.
public struct CommandRun: Sendable {
    public let status: Int32
    public let standardOutput: String
    public let standardError: String

    /// Runs `executable` with `arguments` and an environment (added to ours, a nil value removes
    /// a variable), and waits for it. Spawned with `ChildProcess`, not Foundation's `Process`,
    /// which has crashed test runs on Linux when many tests start processes at once. The wait
    /// happens off Swift's cooperative threads (two on this machine): blocking one of them stalls
    /// every in-process server of the test run, and timing tests fail.
    public static func run(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String?] = [:]
    ) async throws -> CommandRun {
        try await Blocking.run { try runBlocking(executable, arguments, environment: environment) }
    }

    private static func runBlocking(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String?]
    ) throws -> CommandRun {
        var merged = ProcessInfo.processInfo.environment
        for (name, value) in environment { merged[name] = value }
        let folder = FileManager.default.temporaryDirectory
        let outputPath = folder.appendingPathComponent("purse-test-out-\(UUID().uuidString)").path
        let errorPath = folder.appendingPathComponent("purse-test-err-\(UUID().uuidString)").path
        defer {
            unlink(outputPath)
            unlink(errorPath)
        }
        let pid = try ChildProcess.spawn(executable, arguments, environment: merged, outputPath: outputPath, errorPath: errorPath)
        let status = try ChildProcess.wait(for: pid)
        return CommandRun(
            status: status,
            standardOutput: (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "",
            standardError: (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
        )
    }
}
