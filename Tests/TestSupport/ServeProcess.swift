public import Foundation
public import LocalPostgres
import Postgres

/// A `purse serve` process started from the built binary, as a user starts it.
public final class ServeProcess: Sendable {
    public let pid: pid_t
    public let port: Int
    private let outputPath: String

    private init(pid: pid_t, port: Int, outputPath: String) {
        self.pid = pid
        self.port = port
        self.outputPath = outputPath
    }

    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Everything the process printed so far.
    public var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    /// Starts `purse serve --port 0 <arguments>` in `directory` (as `user` when given, which needs
    /// root) and returns once it listens. `environment` is added to ours; a nil value removes a
    /// variable (DATABASE_URL and PURSE_* are removed unless given).
    public static func start(
        in directory: URL,
        arguments: [String] = [],
        environment: [String: String?] = [:],
        as user: String? = nil,
        timeout: Duration = .seconds(90)
    ) async throws -> ServeProcess {
        var variables = ProcessInfo.processInfo.environment.filter {
            !$0.key.hasPrefix("PURSE_") && $0.key != "DATABASE_URL"
        }
        for (name, value) in environment { variables[name] = value }
        let outputPath = directory.appendingPathComponent("serve-\(UUID().uuidString.prefix(8)).log").path
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        // `sh -c 'cd ... && exec ...'` gives the process its working folder, which posix_spawn cannot.
        let script = "cd \"$1\" && shift && exec \"$@\""
        var command = ["/bin/sh", "-c", script, "sh", directory.path, PurseBinary.path, "serve", "--port", "0"] + arguments
        if let user {
            try ChildProcess.run("/bin/chown", [user, outputPath]).checked()
            // setpriv execs in place (runuser would stay as a parent), so signals reach purse itself.
            command =
                ["/usr/bin/setpriv", "--reuid=\(user)", "--regid=\(user == "nobody" ? "nogroup" : user)", "--init-groups"]
                + command
        }
        let pid = try ChildProcess.spawn(command[0], Array(command.dropFirst()), environment: variables, outputPath: outputPath)
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            if let range = text.range(of: "listening on port ") {
                let digits = text[range.upperBound...].prefix { $0.isNumber }
                if let port = Int(digits) { return ServeProcess(pid: pid, port: port, outputPath: outputPath) }
            }
            if let status = ChildProcess.exitStatusIfExited(pid) {
                throw TestSetupError("purse serve exited with status \(status) before listening:\n\(text)")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        kill(pid, SIGKILL)
        throw TestSetupError("purse serve did not start listening in time:\n\((try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "")")
    }

    public func signal(_ signal: Int32) {
        kill(pid, signal)
    }

    /// Waits for the process to exit and returns its status; kills it if `timeout` passes first.
    public func waitForExit(timeout: Duration = .seconds(30)) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let status = ChildProcess.exitStatusIfExited(pid) { return status }
            try await Task.sleep(for: .milliseconds(50))
        }
        kill(pid, SIGKILL)
        _ = try ChildProcess.wait(for: pid)
        throw TestSetupError("purse serve did not exit in time:\n\(output)")
    }
}

extension ChildProcess.Outcome {
    /// Throws when the command failed.
    public func checked() throws {
        guard status == 0 else { throw TestSetupError("command failed (\(status)): \(output)") }
    }
}
