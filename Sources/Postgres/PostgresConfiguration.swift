import CLibPQ
import Foundation

/// Where and how to connect: libpq keyword/value parameters, parsed by libpq from a connection
/// string (a `postgres://` URL or keyword/value pairs) or built from discrete settings.
///
/// The parameters go to `PQconnectdbParams` as arrays, never as a connection string we build, so
/// a value can contain any character.
public struct PostgresConfiguration: Sendable, CustomStringConvertible {
    /// libpq connection keywords and their values, in order (`host`, `port`, `dbname`, ...).
    public private(set) var parameters: [(keyword: String, value: String)]

    /// Discrete settings. `host` may be a hostname, an address or a unix-socket directory.
    public init(
        host: String = "127.0.0.1",
        port: Int = 5432,
        user: String,
        password: String? = nil,
        database: String,
        extraParameters: [(keyword: String, value: String)] = []
    ) {
        parameters = [("host", host), ("port", String(port)), ("user", user), ("dbname", database)]
        if let password { parameters.append(("password", password)) }
        parameters += extraParameters
        applyDefaults()
    }

    /// Parses a connection string exactly as libpq does (`PQconninfoParse`): a URI
    /// (`postgres://user:password@host1:5432,host2:5433/database?target_session_attrs=read-write`,
    /// several hosts tried in turn) or keyword/value pairs (`host=h1,h2 port=5432,5433
    /// dbname=purse sslmode=verify-full`). Every keyword this libpq knows is accepted, none other:
    /// `load_balance_hosts` needs libpq 16.
    public init(connectionString: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(connectionString, &message) else {
            let reason = message.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? "out of memory"
            if let message { PQfreemem(message) }
            throw PGError(
                .invalidConfiguration,
                message: "The database URL is not one libpq accepts (\(reason)): postgres://user:password@host:5432/database, "
                    + "several hosts as host1:5432,host2:5432, or keyword=value pairs"
            )
        }
        defer { PQconninfoFree(options) }
        var parameters: [(keyword: String, value: String)] = []
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { parameters.append((String(cString: keyword), String(cString: value))) }
            option += 1
        }
        self.parameters = parameters
        applyDefaults()
    }

    /// Returns the value of a libpq keyword, if set.
    public func value(for keyword: String) -> String? {
        parameters.last { $0.keyword == keyword }?.value
    }

    /// Sets (or replaces) a libpq keyword.
    public mutating func set(_ keyword: String, _ value: String) {
        parameters.removeAll { $0.keyword == keyword }
        parameters.append((keyword, value))
    }

    /// Settings every Purse connection wants unless the caller chose otherwise: a bounded connect
    /// time, no server notices on stderr, UTC timestamps, and a recognisable application name.
    /// Over TCP, a server that vanishes without a reset (a failover, a firewall dropping the
    /// connection) is noticed: an idle connection is probed after 30 s and given up after three
    /// unanswered probes 10 s apart, and a statement whose bytes the server has not acknowledged
    /// for 30 s fails, instead of the kernel's many minutes of each.
    static let defaults: [(keyword: String, value: String)] = [
        ("connect_timeout", "5"),
        ("application_name", "purse"),
        ("keepalives", "1"),
        ("keepalives_idle", "30"),
        ("keepalives_interval", "10"),
        ("keepalives_count", "3"),
        ("tcp_user_timeout", "30000"),
    ]

    private mutating func applyDefaults() {
        for (keyword, value) in Self.defaults where self.value(for: keyword) == nil { set(keyword, value) }
        let sessionOptions = "-c client_min_messages=warning -c TimeZone=UTC"
        if let options = value(for: "options") {
            set("options", options + " " + sessionOptions)
        } else {
            set("options", sessionOptions)
        }
    }

    /// The parameters with the password masked, for logs.
    public var description: String {
        parameters
            .map { $0.keyword == "password" ? "password=****" : "\($0.keyword)=\($0.value)" }
            .joined(separator: " ")
    }
}
