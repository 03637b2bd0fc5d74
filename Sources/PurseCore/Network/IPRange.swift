import Foundation

/// An IPv4 or IPv6 address range in CIDR form (`10.0.0.0/8`, `fd00::/8`), or one address
/// (`127.0.0.1`, `::1`), for settings that name networks (trusted proxies).
public struct IPRange: Sendable, Hashable, CustomStringConvertible {
    /// The network's address bytes (4 or 16).
    public let network: [UInt8]
    public let prefixLength: Int

    /// Parses `address` or `address/prefix`; nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let bytes = Self.bytes(of: String(parts[0])) else { return nil }
        let prefix: Int
        if parts.count == 2 {
            guard let parsed = Int(parts[1]), (0...(bytes.count * 8)).contains(parsed), String(parsed) == parts[1] else { return nil }
            prefix = parsed
        } else {
            prefix = bytes.count * 8
        }
        self.network = Self.masked(bytes, prefix: prefix)
        self.prefixLength = prefix
    }

    /// Whether `address` (textual, as a socket reports it) lies in the range. An IPv4-mapped
    /// IPv6 address (`::ffff:10.0.0.1`) counts as its IPv4 address.
    public func contains(_ address: String) -> Bool {
        guard var bytes = Self.bytes(of: address) else { return false }
        if bytes.count == 16, network.count == 4, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
            bytes = Array(bytes[12...])
        }
        return bytes.count == network.count && Self.masked(bytes, prefix: prefixLength) == network
    }

    public var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = network.count == 4 ? AF_INET : AF_INET6
        _ = network.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) }
        let address = String(decoding: text.prefix { $0 != 0 }.map(UInt8.init(bitPattern:)), as: UTF8.self)
        return "\(address)/\(prefixLength)"
    }

    /// The bytes of a textual IPv4 (dotted quad only) or IPv6 address.
    static func bytes(of text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    private static func masked(_ bytes: [UInt8], prefix: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let bits = max(0, min(8, prefix - index * 8))
            return bits == 8 ? byte : byte & ~(UInt8(0xff) >> bits)
        }
    }
}
