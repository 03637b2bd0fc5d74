import Foundation

/// Runs a command and waits for it, with `posix_spawn` and `waitpid`.
///
/// Foundation's `Process` is not used: on Linux it notices a child's exit through a descriptor
/// the child inherits, so a command that leaves a daemon behind (`pg_ctl start`) never seems to
/// finish.
enum ChildProcess {
    struct Outcome {
        var status: Int32
        /// Standard output and standard error, interleaved.
        var output: String
    }

    struct SpawnError: Error, CustomStringConvertible {
        let code: Int32
        var description: String { String(cString: strerror(code)) }
    }

    /// Runs `executable` (a path, or a name looked up in `PATH`) and blocks until it exits.
    /// Its output goes to a temporary file rather than a pipe, which a daemon would hold open.
    static func run(_ executable: String, _ arguments: [String]) throws -> Outcome {
        let outputPath = FileManager.default.temporaryDirectory
            .appendingPathComponent("purse-command-\(UUID().uuidString).log").path
        defer { unlink(outputPath) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        // `argv` holds C strings freed only after the call; the environment is ours (`environ`).
        let spawned = executable.contains("/")
            ? posix_spawn(&pid, executable, &actions, nil, argv, environ)
            : posix_spawnp(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else { throw SpawnError(code: spawned) }

        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { throw SpawnError(code: errno) }
        }
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        // WIFEXITED / WEXITSTATUS, which are macros Swift does not import.
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Outcome(status: exitStatus, output: output)
    }
}
