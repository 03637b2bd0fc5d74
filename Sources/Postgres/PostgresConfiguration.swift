import Foundation

/// Where and how to connect: libpq keyword/value parameters, built from a `postgres://` URL or
/// from discrete settings.
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

    /// Parses `postgres://user:password@host:port/database?keyword=value`.
    ///
    /// Query items become libpq parameters as they are (`sslmode`, `connect_timeout`, and `host`
    /// for a unix-socket directory). Percent-encoded user names and passwords are decoded.
    public init(url: String) throws {
        guard let components = URLComponents(string: url),
            let scheme = components.scheme?.lowercased(),
            scheme == "postgres" || scheme == "postgresql"
        else {
            throw PGError(
                .invalidConfiguration,
                message: "The database URL must look like postgres://user:password@host:5432/database"
            )
        }
        var parameters: [(keyword: String, value: String)] = []
        if let host = components.percentEncodedHost, !host.isEmpty {
            parameters.append(("host", host.removingPercentEncoding ?? host))
        }
        if let port = components.port { parameters.append(("port", String(port))) }
        if let user = components.user, !user.isEmpty { parameters.append(("user", user)) }
        if let password = components.password { parameters.append(("password", password)) }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        if !path.isEmpty {
            guard !path.contains("/") else {
                throw PGError(.invalidConfiguration, message: "The database URL's path must be one database name")
            }
            parameters.append(("dbname", path))
        }
        for item in components.queryItems ?? [] {
            guard !item.name.isEmpty, let value = item.value else {
                throw PGError(
                    .invalidConfiguration,
                    message: "The database URL has a query parameter without a value: '\(item.name)'"
                )
            }
            parameters.removeAll { $0.keyword == item.name }
            parameters.append((item.name, value))
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
