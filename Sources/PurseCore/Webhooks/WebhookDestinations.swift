/// Looks host names up: the system's resolver in `purse serve`, a scripted one in tests.
public protocol HostResolver: Sendable {
    /// The address `name` spells when it is one, read as a connection would read it: every
    /// numeric spelling `getaddrinfo` accepts (`2130706433`, `0x7f.1`, `[::ffff:7f00:1]`'s text),
    /// with or without a trailing dot. Nil for a name. Never looks anything up, so never waits.
    func literalAddress(_ name: String) -> IPAddress?

    /// Every address `name` stands for (a literal address stands for itself). Empty, or an
    /// error, when it does not resolve. Returns promptly when the calling task is cancelled.
    func addresses(of name: String) async throws -> [IPAddress]
}

/// Why an attempt got no response: what a tenant sees in an attempt's `error`, never the
/// network's own error text (which would map the operator's network for them).
public enum WebhookFailure: String, Error, Sendable, CaseIterable {
    /// The destination rules refuse the URL, its name, or an address it resolves to; no
    /// connection was made.
    case destinationNotAllowed = "destination_not_allowed"
    /// The host name did not resolve.
    case dnsFailure = "dns_failure"
    /// No connection could be made, or it closed before a response came.
    case connectionFailed = "connection_failed"
    /// The TLS handshake failed: an untrusted or expired certificate, another name, no common
    /// protocol.
    case tlsFailure = "tls_failure"
    /// No whole response within the attempt's time (`--webhook-timeout`), lookup included.
    case timeout
    /// The answer was not HTTP/1.x.
    case invalidResponse = "invalid_response"
}

/// The destination rules applied with a resolver: at registration, and before every delivery.
public struct WebhookDestinations: Sendable {
    public let policy: WebhookDestinationPolicy
    public let resolver: any HostResolver
    /// How long registration waits for a lookup before accepting the URL as unresolved.
    public var registrationLookupLimit: Duration

    public init(policy: WebhookDestinationPolicy, resolver: any HostResolver, registrationLookupLimit: Duration = .seconds(2)) {
        self.policy = policy
        self.resolver = resolver
        self.registrationLookupLimit = registrationLookupLimit
    }

    /// Checks an endpoint URL being registered: refused when its syntax, scheme or name is, or
    /// when its host is, or resolves now to, an address the rules refuse. A name that does not
    /// resolve now, or not within `registrationLookupLimit`, is accepted: every delivery checks
    /// it again. A literal address is judged at once, so no slow lookup can let one through.
    public func checkRegistration(_ url: String) async throws(WebhookDestinationPolicy.Refusal) {
        let target = try policy.target(url).get()
        guard policy.requireHTTPS else { return }
        let name = policy.lookupName(for: target)
        let addresses: [IPAddress]
        if let literal = resolver.literalAddress(name) {
            addresses = [literal]
        } else {
            let resolver = self.resolver
            addresses = (try? await withTimeLimit(registrationLookupLimit) { try await resolver.addresses(of: name) }) ?? []
        }
        if addresses.contains(where: { !policy.permits($0, for: target) }) { throw .notPublic }
    }

    /// Where a delivery to `url` may connect: the target and the addresses its host resolves to
    /// now, every one of them permitted. Resolved once: the connection goes to these addresses,
    /// never to a second lookup's, so a name cannot change its answer in between (DNS rebinding).
    public func resolveForDelivery(_ url: String) async -> Result<Destination, WebhookFailure> {
        guard case .success(let target) = policy.target(url) else { return .failure(.destinationNotAllowed) }
        let addresses: [IPAddress]
        do {
            addresses = try await resolver.addresses(of: policy.lookupName(for: target))
        } catch {
            return .failure(.dnsFailure)
        }
        if addresses.isEmpty { return .failure(.dnsFailure) }
        if addresses.contains(where: { !policy.permits($0, for: target) }) { return .failure(.destinationNotAllowed) }
        return .success(Destination(target: target, addresses: addresses))
    }

    /// A checked destination.
    public struct Destination: Sendable, Equatable {
        public let target: WebhookTarget
        /// In the resolver's order; never empty.
        public let addresses: [IPAddress]
    }
}

/// `body`'s result, or nil when `limit` passes first (`body` is then cancelled, and must
/// return promptly when it is).
public func withTimeLimit<Result: Sendable>(
    _ limit: Duration, _ body: @escaping @Sendable () async throws -> Result
) async throws -> Result? {
    try await withThrowingTaskGroup(of: Result?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        return try await group.next() ?? nil
    }
}
