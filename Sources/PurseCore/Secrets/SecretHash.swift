import Crypto

/// How secrets Purse never needs to show again (API keys, ephemeral-key secrets, session client
/// secrets) are kept: a SHA-256 hash, compared in constant time.
public enum SecretHash {
    public static func sha256(_ secret: String) -> [UInt8] {
        Array(SHA256.hash(data: Array(secret.utf8)))
    }

    /// Compares without stopping at the first difference, so timing tells nothing.
    public static func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }

    /// A secret shown masked in error messages: its prefix, stars, and its last four characters.
    public static func masked(_ secret: String) -> String {
        let prefixes = ["sk_test_", "pk_test_", "ek_test_", "sk_live_", "pk_live_", "ek_live_", "rk_test_", "rk_live_"]
        let prefix = prefixes.first { secret.hasPrefix($0) } ?? ""
        let rest = secret.dropFirst(prefix.count)
        guard rest.count > 4 else { return prefix + String(repeating: "*", count: rest.count) }
        return prefix + String(repeating: "*", count: min(rest.count - 4, 20)) + rest.suffix(4)
    }
}
