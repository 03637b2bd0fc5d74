public import Foundation
public import Postgres

/// A PostgreSQL cluster in a folder of its own, made and run with the system's `initdb` and
/// `pg_ctl`: the service's local default, and the throwaway clusters tests use.
///
/// It listens on a loopback port only and requires the password kept beside it (mode 0600), so
/// other users of the machine cannot read it. PostgreSQL refuses to run as root, so when the
/// process is root every command runs as the `postgres` system user, which then owns the data.
public struct LocalCluster: Sendable {
    /// The folder holding `data/`, `password` and `port`.
    public let directory: URL
    /// Extra server settings (`fsync=off` for tests, say), passed as `-c` options.
    public var serverSettings: [String: String]

    public init(directory: URL, serverSettings: [String: String] = [:]) {
        self.directory = directory.standardizedFileURL
        self.serverSettings = serverSettings
    }

    /// The cluster's own data folder (PGDATA), inside `directory`.
    public var dataDirectory: URL { directory.appendingPathComponent("data") }
    var passwordFile: URL { directory.appendingPathComponent("password") }
    var portFile: URL { directory.appendingPathComponent("port") }
    var logFile: URL { directory.appendingPathComponent("server.log") }

    /// Whether `initdb` has run here.
    public var isInitialized: Bool {
        FileManager.default.fileExists(atPath: dataDirectory.appendingPathComponent("PG_VERSION").path)
    }

    /// Creates the cluster when the folder has none. Returns true when it created one.
    @discardableResult
    public func initializeIfNeeded() throws -> Bool {
        if isInitialized { return false }
        let files = FileManager.default
        try files.createDirectory(at: directory, withIntermediateDirectories: true)
        try files.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
        let password = try Self.randomPassword()
        // initdb reads the superuser password from a file it must be able to open.
        let passwordInput = directory.appendingPathComponent("initdb-password")
        try Data(password.utf8).write(to: passwordInput)
        defer { try? files.removeItem(at: passwordInput) }
        try Data(password.utf8).write(to: passwordFile)
        try files.setAttributes([.posixPermissions: 0o600], ofItemAtPath: passwordFile.path)
        if let owner = Self.serverUser {
            try Self.run("/bin/chown", ["-R", "\(owner):\(owner)", directory.path])
        }
        try runAsServerUser(
            "initdb",
            [
                "--no-sync", "-D", dataDirectory.path, "-U", "postgres", "--encoding=UTF8", "--locale=C",
                "--auth=scram-sha-256", "--pwfile=\(passwordInput.path)",
            ]
        )
        if Self.serverUser != nil {
            // Our process keeps reading the password file; the server's data stays the server user's.
            try Self.run("/bin/chown", ["root:root", passwordFile.path])
        }
        return true
    }

    /// Starts the server on a free loopback port (the one used last time when it is still free)
    /// and waits until it accepts connections.
    public func start() throws {
        let port = try choosePort()
        try Data(String(port).utf8).write(to: portFile)
        var options = "-p \(port) -c listen_addresses=127.0.0.1 -c unix_socket_directories=''"
        for (name, value) in serverSettings.sorted(by: { $0.key < $1.key }) { options += " -c \(name)=\(value)" }
        if let owner = Self.serverUser {
            _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
            try Self.run("/bin/chown", ["\(owner):\(owner)", logFile.path])
        }
        try runAsServerUser(
            "pg_ctl", ["-w", "-t", "60", "-D", dataDirectory.path, "-l", logFile.path, "-o", options, "start"]
        )
    }

    /// Stops the server, letting it finish quickly (`-m fast`). Does nothing if it is not running.
    public func stop() throws {
        guard isRunning else { return }
        try runAsServerUser("pg_ctl", ["-w", "-D", dataDirectory.path, "-m", "fast", "stop"])
    }

    public var isRunning: Bool {
        (try? runAsServerUser("pg_ctl", ["-D", dataDirectory.path, "status"])) != nil
    }

    /// How to connect to the running cluster.
    public func configuration(database: String = "postgres") throws -> PostgresConfiguration {
        PostgresConfiguration(
            host: "127.0.0.1",
            port: try port(),
            user: "postgres",
            password: try String(contentsOf: passwordFile, encoding: .utf8),
            database: database
        )
    }

    /// The connection URL of the running cluster, with its password (keep it out of logs).
    public func url(database: String = "postgres") throws -> String {
        let password = try String(contentsOf: passwordFile, encoding: .utf8)
        return "postgres://postgres:\(password)@127.0.0.1:\(try port())/\(database)"
    }

    public func port() throws -> Int {
        guard let text = try? String(contentsOf: portFile, encoding: .utf8), let port = Int(text) else {
            throw PGError(.invalidConfiguration, message: "The local cluster in \(directory.path) has not been started")
        }
        return port
    }

    // MARK: - Internals

    /// The user the server must run as: `postgres` when we are root, else ourselves (nil).
    static var serverUser: String? { getuid() == 0 ? "postgres" : nil }

    /// The folder with `initdb` and `pg_ctl`: `PURSE_PG_BIN`, else the newest Debian-style
    /// `/usr/lib/postgresql/N/bin`, else whatever `PATH` finds.
    static func binary(_ name: String) -> String {
        if let folder = ProcessInfo.processInfo.environment["PURSE_PG_BIN"] {
            return URL(fileURLWithPath: folder).appendingPathComponent(name).path
        }
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
            .compactMap(Int.init).sorted(by: >)
        for version in versions {
            let path = "\(root)/\(version)/bin/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return name
    }

    @discardableResult
    private func runAsServerUser(_ tool: String, _ arguments: [String]) throws -> String {
        let executable = Self.binary(tool)
        if let user = Self.serverUser {
            return try Self.run("/usr/sbin/runuser", ["-u", user, "--", executable] + arguments)
        }
        return try Self.run(executable, arguments)
    }

    /// Runs a command to completion; throws with its output when it fails.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let outcome: ChildProcess.Outcome
        do {
            outcome = try ChildProcess.run(executable, arguments)
        } catch {
            throw PGError(
                .invalidConfiguration,
                message: "Cannot run \(executable): \(error). Install PostgreSQL (apt-get install postgresql)."
            )
        }
        guard outcome.status == 0 else {
            let tool = arguments.first { $0.hasPrefix("/") && !$0.hasPrefix("/tmp") } ?? executable
            throw PGError(
                .connectionFailed,
                message: "\(URL(fileURLWithPath: tool).lastPathComponent) failed (exit \(outcome.status)): "
                    + outcome.output.trimmingCharacters(in: .whitespacesAndNewlines)
            )
        }
        return outcome.output
    }

    /// The port from last time if nothing listens there now, else a free one from the kernel.
    private func choosePort() throws -> Int {
        if let previous = try? port(), Self.isFree(port: previous) { return previous }
        for _ in 0..<20 {
            if let port = Self.ephemeralPort(), Self.isFree(port: port) { return port }
        }
        throw PGError(.connectionFailed, message: "No free loopback port for the local PostgreSQL")
    }

    static func isFree(port: Int) -> Bool {
        withLoopbackSocket(port: port) { socket, address in
            address.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } == 0
        } ?? false
    }

    /// A loopback port the kernel reports free (it binds port 0 and reads what it got).
    public static func ephemeralPort() -> Int? {
        withLoopbackSocket(port: 0) { socket, address -> Int? in
            let bound = address.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
            guard bound == 0 else { return nil }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = address.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getsockname(socket, $0, &length)
            }
            return named == 0 ? Int(UInt16(bigEndian: address.pointee.sin_port)) : nil
        } ?? nil
    }

    /// Opens a TCP socket and a 127.0.0.1 address for `port`, and closes the socket afterwards.
    private static func withLoopbackSocket<Result>(
        port: Int,
        _ body: (Int32, UnsafeMutablePointer<sockaddr_in>) -> Result
    ) -> Result? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        // As PostgreSQL does, so a port whose old connections linger in TIME_WAIT counts as free.
        var reuse: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafeMutablePointer(to: &address) { body(descriptor, $0) }
    }

    private static func randomPassword() throws -> String {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        return String((0..<32).map { _ in alphabet.randomElement(using: &generator)! })
    }
}
