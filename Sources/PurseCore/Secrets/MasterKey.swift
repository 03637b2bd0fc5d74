public import Crypto
import Foundation

/// The root of every secret Purse must be able to show again (spec §2).
///
/// Purposes get keys of their own through HKDF, so a key derived for one use (fingerprints, say)
/// tells nothing about another (idempotent responses).
public struct MasterKey: Sendable {
    private let key: SymmetricKey

    /// The number of random bytes in a master key.
    public static let byteCount = 32

    public init(bytes: [UInt8]) throws {
        guard bytes.count == Self.byteCount else { throw MasterKeyError.wrongLength }
        key = SymmetricKey(data: bytes)
    }

    /// A new random key.
    public static func generate() -> MasterKey {
        // `try!`: the generated key always has the right length.
        try! MasterKey(bytes: Array(SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }))
    }

    /// Reads a key written as 64 hex characters, or as base64 of 32 bytes, around whitespace.
    public init(text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.utf8.count == Self.byteCount * 2, let bytes = Self.hexBytes(trimmed) {
            try self.init(bytes: bytes)
        } else if let data = Data(base64Encoded: trimmed), data.count == Self.byteCount {
            try self.init(bytes: Array(data))
        } else {
            throw MasterKeyError.unreadable
        }
    }

    /// The key as 64 hex characters, for the key file.
    public var hexText: String {
        key.withUnsafeBytes { $0.map { String(format: "%02x", $0) }.joined() }
    }

    /// A key for one purpose, optionally bound to one scope (an account id, say).
    public func derivedKey(for purpose: String, scope: String = "") -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: key,
            salt: Array("purse".utf8),
            info: Array("\(purpose)|\(scope)".utf8),
            outputByteCount: 32
        )
    }

    private static func hexBytes(_ text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        var high: UInt8?
        for character in text.utf8 {
            guard let nibble = character.hexDigitValue else { return nil }
            if let pending = high {
                bytes.append(pending << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return high == nil ? bytes : nil
    }
}

public enum MasterKeyError: Error, CustomStringConvertible {
    case wrongLength
    case unreadable

    public var description: String {
        "A master key is 32 random bytes written as 64 hex characters (for example `openssl rand -hex 32`)."
    }
}
