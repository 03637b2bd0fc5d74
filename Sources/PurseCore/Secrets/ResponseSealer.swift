import Crypto

/// Seals stored responses (idempotency replays carry secrets) with AES-GCM under a key derived
/// from the master key for each account.
public struct ResponseSealer: Sendable {
    private let masterKey: MasterKey

    public init(masterKey: MasterKey) { self.masterKey = masterKey }

    public func seal(_ plaintext: [UInt8], account: String) throws -> [UInt8] {
        let key = masterKey.derivedKey(for: "idempotent-response", scope: account)
        guard let combined = try AES.GCM.seal(plaintext, using: key).combined else {
            throw PurseError(.invalidRequest, message: "Could not seal a response")
        }
        return Array(combined)
    }

    public func open(_ sealed: [UInt8], account: String) throws -> [UInt8] {
        let key = masterKey.derivedKey(for: "idempotent-response", scope: account)
        return Array(try AES.GCM.open(AES.GCM.SealedBox(combined: sealed), using: key))
    }
}
