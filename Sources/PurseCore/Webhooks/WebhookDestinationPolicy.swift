import Foundation

/// Where webhooks may go. By default anywhere over http or https, for local development (spec
/// §5). With `requireHTTPS` (`--webhook-require-https`, the production setting) only https, and
/// only to public destinations: no special-use name (``isSpecialUseName(_:)``), no single-label
/// name, and no address outside ``AddressScope/global`` — judged on the addresses the host
/// resolves to, so every spelling of an address is judged alike. The operator's ``allowList``
/// exempts names and blocks of addresses from the name and address rules (never from https).
///
/// Pure rules: resolving is ``WebhookDestinations``' job.
public struct WebhookDestinationPolicy: Sendable {
    public var requireHTTPS: Bool
    public var allowList: WebhookAllowList

    public init(requireHTTPS: Bool = false, allowList: WebhookAllowList = WebhookAllowList()) {
        self.requireHTTPS = requireHTTPS
        self.allowList = allowList
    }

    /// Why a URL is refused.
    public enum Refusal: Error, Sendable, Equatable {
        /// Not an absolute http(s) URL with a usable host.
        case invalidURL
        /// http where only https is accepted.
        case httpsRequired
        /// A host that is not a public destination.
        case notPublic

        /// The sentence a tenant sees; it never says what a name resolved to.
        public var message: String {
            switch self {
            case .invalidURL:
                "Invalid URL: the endpoint must be an absolute http(s) URL whose host is a name (ASCII; xn-- for others) or an IP address."
            case .httpsRequired: "Invalid URL: this server accepts only https endpoints."
            case .notPublic: "Invalid URL: this server accepts only public hosts."
            }
        }
    }

    /// The URL read into a target, unless it is refused before any lookup: by its syntax, its
    /// scheme, or its name.
    public func target(_ url: String) -> Result<WebhookTarget, Refusal> {
        guard let target = WebhookTarget(url) else { return .failure(.invalidURL) }
        guard requireHTTPS else { return .success(target) }
        guard target.isHTTPS else { return .failure(.httpsRequired) }
        if target.isIPv6Literal || allowList.allows(name: target.host) { return .success(target) }
        let name = target.serverName
        if Self.isSpecialUseName(name) { return .failure(.notPublic) }
        // A single label is a top-level domain, never a public host; resolved, it would reach
        // the search domains' hosts. Numeric spellings (`2130706433`) begin with a digit and are
        // judged by their address.
        if !name.contains("."), name.first.map({ !$0.isNumber }) ?? true { return .failure(.notPublic) }
        return .success(target)
    }

    /// The name to ask the resolver for. With `requireHTTPS`, a name not on the allow-list is
    /// looked up as an absolute name (a trailing dot): no search domain is appended to it and
    /// no `/etc/hosts` alias answers for it.
    public func lookupName(for target: WebhookTarget) -> String {
        guard requireHTTPS, !target.isIPv6Literal, !target.host.hasSuffix("."), !allowList.allows(name: target.host) else {
            return target.host
        }
        return target.host + "."
    }

    /// Whether a connection to `address`, which `target`'s host resolved to, may be made.
    public func permits(_ address: IPAddress, for target: WebhookTarget) -> Bool {
        guard requireHTTPS else { return true }
        if allowList.allows(name: target.host) || allowList.allows(address: address) { return true }
        return address.scope == .global
    }

    /// Names that never lead to a public host (RFC 6761, RFC 6762, RFC 7686, RFC 8375, RFC 9476,
    /// and ICANN's `.internal`): `localhost` and `*.localhost`, `*.local`, `*.internal`,
    /// `*.home.arpa`, `test`, `invalid`, `onion` and `alt`, each with or without a trailing dot.
    public static func isSpecialUseName(_ host: String) -> Bool {
        let name = (host.hasSuffix(".") ? String(host.dropLast()) : host).lowercased()
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        guard let last = labels.last else { return false }
        if ["localhost", "local", "internal", "test", "invalid", "onion", "alt"].contains(last) { return true }
        return labels.count >= 2 && labels[labels.count - 2] == "home" && last == "arpa"
    }
}

/// The operator's exceptions to the public-destination rules (`--webhook-allowed-hosts`): host
/// names, matched exactly (without case or a trailing dot), and blocks of addresses in CIDR
/// notation, or single addresses.
public struct WebhookAllowList: Sendable, Equatable, CustomStringConvertible {
    public private(set) var names: Set<String>
    public private(set) var networks: [IPNetwork]

    public init(names: Set<String> = [], networks: [IPNetwork] = []) {
        self.names = Set(names.map(Self.normalized))
        self.networks = networks
    }

    /// An entry that is neither a host name nor an address block.
    public struct InvalidEntry: Error, Sendable, Equatable {
        public let entry: String

        public init(entry: String) {
            self.entry = entry
        }
    }

    /// Reads a comma-separated list, such as `localhost,hooks.internal,10.0.0.0/8,fd00::/8`;
    /// spaces around entries and empty entries are ignored.
    public init(parsing text: String) throws(InvalidEntry) {
        self.init()
        for raw in text.split(separator: ",") {
            let entry = raw.trimmingCharacters(in: .whitespaces)
            if entry.isEmpty { continue }
            let unbracketed = entry.hasPrefix("[") && entry.hasSuffix("]") ? String(entry.dropFirst().dropLast()) : entry
            if let network = IPNetwork(unbracketed) {
                networks.append(network)
            } else if !entry.contains("/"), WebhookTarget.isHostName(entry.lowercased()) {
                names.insert(Self.normalized(entry))
            } else {
                throw InvalidEntry(entry: entry)
            }
        }
    }

    public var isEmpty: Bool { names.isEmpty && networks.isEmpty }

    public func allows(name host: String) -> Bool {
        !names.isEmpty && names.contains(Self.normalized(host))
    }

    /// True when `address`, or the IPv4 address it maps (`::ffff:a.b.c.d`), is in a listed block.
    public func allows(address: IPAddress) -> Bool {
        networks.contains { $0.contains(address) || address.mappedIPv4.map($0.contains) == true }
    }

    public var description: String {
        (names.sorted() + networks.map(\.description)).joined(separator: ",")
    }

    private static func normalized(_ name: String) -> String {
        let lowered = name.lowercased()
        return lowered.hasSuffix(".") ? String(lowered.dropLast()) : lowered
    }
}
