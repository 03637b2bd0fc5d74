/// Where an address leads, after IANA's special-purpose address registries (RFC 6890 and the
/// RFCs they list): only `global` addresses are public destinations.
public enum AddressScope: String, Sendable, CaseIterable {
    /// A public unicast address.
    case global
    /// `0.0.0.0/8` ("this network"), `::`.
    case unspecified
    /// `127.0.0.0/8`, `::1`.
    case loopback
    /// `10.0.0.0/8`, `172.16.0.0/12`, `192.168.0.0/16` (RFC 1918).
    case `private`
    /// `100.64.0.0/10`, carrier-grade NAT (RFC 6598).
    case sharedAddressSpace = "shared_address_space"
    /// `169.254.0.0/16`, `fe80::/10`.
    case linkLocal = "link_local"
    /// `fc00::/7` (RFC 4193).
    case uniqueLocal = "unique_local"
    /// `224.0.0.0/4`, `ff00::/8`.
    case multicast
    /// Everything else that is not public: broadcast and `240.0.0.0/4`, documentation and
    /// benchmarking blocks, IETF protocol assignments, deprecated and unallocated IPv6 space.
    case reserved
}

extension IPAddress {
    /// The scope of this address, or of the IPv4 address it carries when it is IPv4-mapped
    /// (`::ffff:a.b.c.d`), NAT64 (`64:ff9b::/96`, RFC 6052) or 6to4 (`2002::/16`, RFC 3056): a
    /// connection to those reaches the IPv4 address.
    public var scope: AddressScope {
        if isIPv4 { return Self.scopeOfIPv4(bytes) }
        return Self.scopeOfIPv6(bytes)
    }

    private static let ipv4Blocks = blocks([
        ("0.0.0.0/8", .unspecified),
        ("10.0.0.0/8", .private),
        ("100.64.0.0/10", .sharedAddressSpace),
        ("127.0.0.0/8", .loopback),
        ("169.254.0.0/16", .linkLocal),
        ("172.16.0.0/12", .private),
        ("192.0.0.0/24", .reserved),  // IETF protocol assignments
        ("192.0.2.0/24", .reserved),  // TEST-NET-1
        ("192.88.99.0/24", .reserved),  // 6to4 relay anycast (deprecated)
        ("192.168.0.0/16", .private),
        ("198.18.0.0/15", .reserved),  // benchmarking
        ("198.51.100.0/24", .reserved),  // TEST-NET-2
        ("203.0.113.0/24", .reserved),  // TEST-NET-3
        ("224.0.0.0/4", .multicast),
        ("240.0.0.0/4", .reserved),  // reserved, and 255.255.255.255 (broadcast)
    ])

    private static let ipv6Blocks = blocks([
        ("::/128", .unspecified),
        ("::1/128", .loopback),
        ("fe80::/10", .linkLocal),
        ("fc00::/7", .uniqueLocal),
        ("ff00::/8", .multicast),
        ("2001::/23", .reserved),  // IETF protocol assignments: Teredo, benchmarking, ORCHID...
        ("2001:db8::/32", .reserved),  // documentation
        ("3fff::/20", .reserved),  // documentation (RFC 9637)
    ])

    private static func blocks(_ list: [(String, AddressScope)]) -> [(network: IPNetwork, scope: AddressScope)] {
        list.map { (IPNetwork($0.0)!, $0.1) }
    }

    private static let nat64 = IPNetwork("64:ff9b::/96")!
    private static let sixToFour = IPNetwork("2002::/16")!
    private static let globalUnicast = IPNetwork("2000::/3")!

    private static func scopeOfIPv4(_ bytes: [UInt8]) -> AddressScope {
        let address = IPAddress(bytes: bytes)!
        return ipv4Blocks.first { $0.network.contains(address) }?.scope ?? .global
    }

    private static func scopeOfIPv6(_ bytes: [UInt8]) -> AddressScope {
        let address = IPAddress(bytes: bytes)!
        if let mapped = address.mappedIPv4 { return mapped.scope }
        if nat64.contains(address) { return scopeOfIPv4(Array(bytes[12..<16])) }
        if sixToFour.contains(address) { return scopeOfIPv4(Array(bytes[2..<6])) }
        if let block = ipv6Blocks.first(where: { $0.network.contains(address) }) { return block.scope }
        // Outside 2000::/3 is unallocated or special (IPv4-compatible ::/96, discard-only
        // 100::/64, the local-use NAT64 prefix 64:ff9b:1::/48, deprecated site-local fec0::/10).
        return globalUnicast.contains(address) ? .global : .reserved
    }
}
