import Foundation

/// An IPv4 or IPv6 address as the bytes a socket connects to (4 or 16, network order).
///
/// Text is read only in its standard forms (`inet_pton`: dotted decimal for IPv4, RFC 4291 for
/// IPv6): this is for addresses an operator writes and for tests. The other spellings a URL may
/// use for a host (`2130706433`, `0x7f.1`, `0177.0.0.1`) are the resolver's to read, so that the
/// address checked is the one a connection would use.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// 4 bytes for IPv4, 16 for IPv6.
    public let bytes: [UInt8]

    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Parses dotted-decimal IPv4 or standard IPv6 text (no brackets, no zone).
    public init?(_ text: String) {
        var v4 = in_addr()
        var v6 = in6_addr()
        if text.withCString({ inet_pton(AF_INET, $0, &v4) }) == 1 {
            // in_addr holds the address in network order: its bytes are the address's bytes.
            self.bytes = withUnsafeBytes(of: &v4) { Array($0) }
        } else if text.withCString({ inet_pton(AF_INET6, $0, &v6) }) == 1 {
            self.bytes = withUnsafeBytes(of: &v6) { Array($0) }
        } else {
            return nil
        }
    }

    public var isIPv4: Bool { bytes.count == 4 }

    /// The IPv4 address of an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`), which a dual-stack
    /// socket connects to as that IPv4 address; nil for any other address.
    public var mappedIPv4: IPAddress? {
        guard bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff else { return nil }
        return IPAddress(bytes: Array(bytes[12..<16]))
    }

    public var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = isIPv4 ? AF_INET : AF_INET6
        let written = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) }
        guard written != nil else { return "?" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A block of addresses in CIDR notation (`10.0.0.0/8`, `fd00::/8`); a bare address is its own
/// block (`/32`, `/128`).
public struct IPNetwork: Hashable, Sendable, CustomStringConvertible {
    public let address: IPAddress
    public let prefixLength: Int

    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(String(parts[0])) else { return nil }
        let bits = address.bytes.count * 8
        var length = bits
        if parts.count == 2 {
            guard let given = Int(parts[1]), parts[1].allSatisfy({ $0.isASCII && $0.isNumber }), (0...bits).contains(given) else { return nil }
            length = given
        }
        self.init(address: address, prefixLength: length)
    }

    /// The block of `prefixLength` bits around `address` (its host bits are cleared).
    public init(address: IPAddress, prefixLength: Int) {
        var bytes = address.bytes
        for index in bytes.indices {
            let kept = min(8, max(0, prefixLength - index * 8))
            bytes[index] &= kept == 0 ? 0 : ~UInt8(0) << (8 - kept)
        }
        self.address = IPAddress(bytes: bytes)!
        self.prefixLength = prefixLength
    }

    public func contains(_ candidate: IPAddress) -> Bool {
        guard candidate.bytes.count == address.bytes.count else { return false }
        return IPNetwork(address: candidate, prefixLength: prefixLength).address == address
    }

    public var description: String { "\(address)/\(prefixLength)" }
}
