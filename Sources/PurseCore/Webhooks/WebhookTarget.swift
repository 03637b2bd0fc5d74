import Foundation

/// An endpoint URL read once, into what delivery uses: the scheme, the host to resolve and to
/// name in `Host` and TLS, the port, and the request target. The destination checks and the
/// connection work from this one reading, so they cannot disagree about which host is meant.
public struct WebhookTarget: Sendable, Equatable {
    public let isHTTPS: Bool
    /// The host, lowercased: a name (perhaps with a trailing dot), a numeric IPv4 spelling, or
    /// IPv6 text without brackets.
    public let host: String
    /// True when the URL names an IPv6 address (`https://[2001:db8::1]/`).
    public let isIPv6Literal: Bool
    public let port: Int
    /// The `Host` header: the host as the URL writes it, with its port when the URL gives one.
    public let authority: String
    /// Path and query, `/` when the URL has no path.
    public let requestTarget: String
    /// `Basic ...` when the URL carries a user (`https://user:password@host/`), as Stripe sends it.
    public let authorization: String?

    /// The host without its trailing dot: the name TLS asks for (SNI) and checks the
    /// certificate against.
    public var serverName: String { host.hasSuffix(".") ? String(host.dropLast()) : host }

    /// Reads an absolute http(s) URL whose host is an ASCII name, a numeric IPv4 spelling or a
    /// bracketed IPv6 address (no zone); nil for anything else.
    public init?(_ text: String) {
        guard text.utf8.count <= 2048, let components = URLComponents(string: text),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let written = components.percentEncodedHost, !written.isEmpty
        else { return nil }
        let host = written.lowercased()
        if host.hasPrefix("[") {
            let inner = String(host.dropFirst().dropLast())
            guard host.hasSuffix("]"), let address = IPAddress(inner), !address.isIPv4 else { return nil }
            self.host = inner
            self.isIPv6Literal = true
        } else {
            guard Self.isHostName(host) else { return nil }
            self.host = host
            self.isIPv6Literal = false
        }
        let defaultPort = scheme == "https" ? 443 : 80
        if let port = components.port {
            guard (1...65_535).contains(port) else { return nil }
            self.port = port
            self.authority = "\(written):\(port)"
        } else {
            self.port = defaultPort
            self.authority = written
        }
        self.isHTTPS = scheme == "https"
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        self.requestTarget = path + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
        if let user = components.user {
            let credentials = user + ":" + (components.password ?? "")
            self.authorization = "Basic " + Data(credentials.utf8).base64EncodedString()
        } else {
            self.authorization = nil
        }
    }

    /// Dot-separated labels of ASCII letters, digits, `-` and `_`, with at most one trailing dot.
    /// Numeric spellings (`2130706433`, `0x7f.1`) pass: the resolver reads them.
    static func isHostName(_ host: String) -> Bool {
        let name = host.hasSuffix(".") ? host.dropLast() : Substring(host)
        guard !name.isEmpty, name.utf8.count <= 253 else { return false }
        return name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            (1...63).contains(label.utf8.count)
                && label.utf8.allSatisfy { byte in
                    (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                        || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                }
        }
    }
}
