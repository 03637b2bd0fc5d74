public import Foundation

/// A finished run of a command: its exit status and what it printed.
public struct CommandRun: Sendable {
    public let status: Int32
    public let standardOutput: String
    public let standardError: String

    /// Runs `executable` with `arguments` and an environment (added to ours, a nil value removes
    /// a variable), in `directory`, and waits for it.
    public static func run(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String?] = [:],
        directory: URL? = nil
    ) throws -> CommandRun {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment
        for (name, value) in environment { merged[name] = value }
        process.environment = merged
        if let directory { process.currentDirectoryURL = directory }
        let folder = FileManager.default.temporaryDirectory
        let outputURL = folder.appendingPathComponent("purse-test-out-\(UUID().uuidString)")
        let errorURL = folder.appendingPathComponent("purse-test-err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outputURL)
            try? FileManager.default.removeItem(at: errorURL)
        }
        let output = try FileHandle(forWritingTo: outputURL)
        let error = try FileHandle(forWritingTo: errorURL)
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try output.close()
        try error.close()
        return CommandRun(
            status: process.terminationStatus,
            standardOutput: try String(contentsOf: outputURL, encoding: .utf8),
            standardError: try String(contentsOf: errorURL, encoding: .utf8)
        )
    }
}
