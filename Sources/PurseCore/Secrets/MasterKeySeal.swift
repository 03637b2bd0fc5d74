import Crypto
import Foundation

/// The secrets root sealed under one master key: what the database keeps so that instances
/// holding that master key can open the root (docs/operations.md, "Rotating the master key").
///
/// The root is what every derived secret comes from (client secrets, page tokens, webhook
/// signing secrets, fingerprints, sealed idempotent responses); it never changes, so rotating
/// the master key changes none of them.
public struct MasterKeySeal: Sendable, Equatable {
    /// Names the master key without revealing it: 16 hex characters of an HMAC under it.
    public var keyID: String
    /// The root's hex text, sealed with AES-GCM under a key derived from the master key.
    public var sealedRoot: [UInt8]
    /// Unix seconds.
    public var created: Int

    public init(keyID: String, sealedRoot: [UInt8], created: Int) {
        self.keyID = keyID
        self.sealedRoot = sealedRoot
        self.created = created
    }

    /// Seals `root` under `masterKey`.
    public init(root: MasterKey, under masterKey: MasterKey, created: Int) throws {
        let box = try AES.GCM.seal(Array(root.hexText.utf8), using: masterKey.derivedKey(for: "secrets-root-seal"))
        guard let combined = box.combined else { throw MasterKeyError.unreadable }
        self.init(keyID: Self.keyID(of: masterKey), sealedRoot: Array(combined), created: created)
    }

    /// The root, opened with `masterKey`; throws when the seal is not under that key.
    public func open(with masterKey: MasterKey) throws -> MasterKey {
        let box = try AES.GCM.SealedBox(combined: sealedRoot)
        let text = try AES.GCM.open(box, using: masterKey.derivedKey(for: "secrets-root-seal"))
        return try MasterKey(text: String(decoding: text, as: UTF8.self))
    }

    public static func keyID(of masterKey: MasterKey) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Array("purse master key id".utf8), using: masterKey.derivedKey(for: "master-key-id"))
        return mac.prefix(8).map { String(format: "%02x", $0) }.joined()
    }
}
