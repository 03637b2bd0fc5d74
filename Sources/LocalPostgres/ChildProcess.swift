public import Foundation

/// Starts commands with `posix_spawn` and waits for them with `waitpid`.
///
/// Foundation's `Process` is not used: on Linux it notices a child's exit through a descriptor
/// the child inherits, so a command that leaves a daemon behind (`pg_ctl start`) never seems to
/// finish.
public enum ChildProcess {
    public struct Outcome: Sendable {
        public var status: Int32
        /// Standard output and standard error, interleaved.
        public var output: String
    }

    public struct SpawnError: Error, CustomStringConvertible {
        public let code: Int32
        public var description: String { String(cString: strerror(code)) }
    }

    /// Runs `executable` (a path, or a name looked up in `PATH`) and blocks until it exits.
    /// Its output goes to a temporary file rather than a pipe, which a daemon would hold open.
    public static func run(_ executable: String, _ arguments: [String]) throws -> Outcome {
        let outputPath = FileManager.default.temporaryDirectory
            .appendingPathComponent("purse-command-\(UUID().uuidString).log").path
        defer { unlink(outputPath) }
        let pid = try spawn(executable, arguments, outputPath: outputPath)
        let status = try wait(for: pid)
        return Outcome(status: status, output: (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "")
    }

    /// Starts `executable` with standard input from /dev/null and standard output appended to
    /// `outputPath`, standard error to `errorPath` (default: the same file). `environment`
    /// replaces ours when given.
    public static func spawn(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String]? = nil,
        outputPath: String,
        errorPath: String? = nil
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        if let errorPath {
            posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { variables in
            variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        }
        defer { for variable in envp ?? [] { free(variable) } }
        var pid: pid_t = 0
        // The C strings live until after the call; without our own environment the child gets `environ`.
        let spawned =
            envp.map { envp in
                envp.withUnsafeBufferPointer { spawn(&pid, executable, &actions, argv, $0.baseAddress!) }
            } ?? spawn(&pid, executable, &actions, argv, environ)
        guard spawned == 0 else { throw SpawnError(code: spawned) }
        return pid
    }

    /// Blocks until `pid` exits and returns its exit status (128 + signal when killed).
    public static func wait(for pid: pid_t) throws -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { throw SpawnError(code: errno) }
        }
        return exitStatus(status)
    }

    /// The exit status if `pid` has exited, without blocking.
    public static func exitStatusIfExited(_ pid: pid_t) -> Int32? {
        var status: Int32 = 0
        return waitpid(pid, &status, WNOHANG) == pid ? exitStatus(status) : nil
    }

    private static func spawn(
        _ pid: inout pid_t,
        _ executable: String,
        _ actions: inout posix_spawn_file_actions_t,
        _ argv: [UnsafeMutablePointer<CChar>?],
        _ envp: UnsafePointer<UnsafeMutablePointer<CChar>?>
    ) -> Int32 {
        executable.contains("/")
            ? posix_spawn(&pid, executable, &actions, nil, argv, envp)
            : posix_spawnp(&pid, executable, &actions, nil, argv, envp)
    }

    /// WIFEXITED / WEXITSTATUS / WTERMSIG, which are macros Swift does not import.
    private static func exitStatus(_ status: Int32) -> Int32 {
        (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}
