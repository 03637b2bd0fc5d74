import Foundation
import LocalPostgres
import Postgres
import TestSupport

/// One of the built example executables, started as a user starts it: its output goes to a
/// file the test reads as it grows, and lines can be typed into its standard input.
///
/// Started with `posix_spawn`, not Foundation's `Process`: on Linux `Process.run()` crashed when
/// other tests started processes at the same time.
final class RunningProgram: @unchecked Sendable {
    // @unchecked: used by one test at a time; its descriptors are only written from that test.
    let pid: pid_t
    private let inputDescriptor: Int32
    private let outputPath: String
    private let name: String
    /// Its exit status once reaped (a reaped pid may be reused, so it is never signalled again).
    private var reapedStatus: Int32?

    /// The executable `name` beside the test bundle (`.build/<triple>/debug`).
    static func path(of name: String) -> String {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent(name).path
    }

    /// Starts `name` with `arguments`, our environment without `PURSE_*` plus `environment`.
    init(_ name: String, arguments: [String], environment: [String: String] = [:]) throws {
        self.name = name
        outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8)).log").path
        // Only what the program needs: the backend gets Purse's keys, the sheet nothing secret.
        var variables = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PURSE_") }
        for (key, value) in environment { variables[key] = value }

        // Close-on-exec: nothing else this process starts inherits either end (the child's
        // standard input is a dup2 copy, which does not keep the flag).
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw TestSetupError("pipe() failed") }
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[0], 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)

        let argv: [UnsafeMutablePointer<CChar>?] = ([Self.path(of: name)] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for variable in envp { free(variable) } }
        var pid: pid_t = 0
        // The C strings live until after the call (the defers above run after it).
        let spawned = posix_spawn(&pid, Self.path(of: name), &actions, nil, argv, envp)
        close(pipeEnds[0])
        guard spawned == 0 else {
            close(pipeEnds[1])
            throw TestSetupError("Could not start \(name): \(String(cString: strerror(spawned)))")
        }
        self.pid = pid
        inputDescriptor = pipeEnds[1]
    }

    deinit {
        if poll() == nil {
            kill(pid, SIGKILL)
            _ = try? ChildProcess.wait(for: pid)
        }
        close(inputDescriptor)
        unlink(outputPath)
    }

    /// Everything it printed so far.
    var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    /// Types `lines` (each followed by Enter).
    func type(_ lines: String...) {
        let bytes = Array(lines.map { $0 + "\n" }.joined().utf8)
        var offset = 0
        while offset < bytes.count {
            // The bytes are read only inside the closure.
            let written = bytes[offset...].withUnsafeBytes { write(inputDescriptor, $0.baseAddress, $0.count) }
            guard written > 0 else { return }
            offset += written
        }
    }

    /// Waits until the output contains `text` after `offset`, and returns where it ends.
    @discardableResult
    func waitFor(_ text: String, after offset: String.Index? = nil, timeout: Duration = .seconds(60)) async throws -> String.Index {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let printed = output
            let start = offset.map { min($0, printed.endIndex) } ?? printed.startIndex
            if let range = printed.range(of: text, range: start..<printed.endIndex) { return range.upperBound }
            if let status = poll() {
                throw TestSetupError("\(name) exited (\(status)) before printing \(text):\n\(printed)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestSetupError("Timed out waiting for \(text) in:\n\(output)")
    }

    /// Waits for it to exit by itself and returns its status.
    func exitStatus(timeout: Duration = .seconds(30)) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let status = poll() { return status }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestSetupError("\(name) did not exit in time:\n\(output)")
    }

    /// Stops it with SIGTERM and waits for it.
    func stop() async throws -> Int32 {
        if poll() == nil { kill(pid, SIGTERM) }
        return try await exitStatus()
    }

    /// The exit status if it has exited (reaping it once), else nil.
    private func poll() -> Int32? {
        if reapedStatus == nil { reapedStatus = ChildProcess.exitStatusIfExited(pid) }
        return reapedStatus
    }
}
