/// Opens the secrets root with the configured master key, and changes which master keys open it.
///
/// Rotation while instances serve (docs/operations.md): `addKey` seals the root under a new key
/// too, so instances holding either key work alike; once every instance holds the new key,
/// `retireOtherKeys` deletes the other seals, and the old key opens nothing in the database.
public struct MasterKeyService: Sendable {
    private let database: any Database

    public init(database: any Database) { self.database = database }

    /// The secrets root `masterKey` opens. The first time, the root is chosen and sealed: a new
    /// random key for a database without accounts; for one that has them, the master key
    /// itself, from which everything stored so far was derived. Throws when other keys have
    /// seals and this one has none.
    public func unlock(with masterKey: MasterKey) async throws -> MasterKey {
        let keyID = MasterKeySeal.keyID(of: masterKey)
        let seals = try await database.autocommit { try await $0.masterKeySeals.all() }
        if let own = seals.first(where: { $0.keyID == keyID }) {
            return try Self.open(own, with: masterKey)
        }
        guard seals.isEmpty else {
            throw MasterKeyServiceError.notAccepted(keyID: keyID, accepted: seals.map(\.keyID))
        }
        let hasAccounts = try await database.autocommit { try await !$0.accounts.all().isEmpty }
        let root = hasAccounts ? masterKey : MasterKey.generate()
        let seal = try MasterKeySeal(root: root, under: masterKey, created: Clock.now)
        // Another instance starting at the same moment may have sealed a root first: use its.
        if try await database.autocommit({ try await $0.masterKeySeals.insert(seal) }) { return root }
        return try await unlock(with: masterKey)
    }

    /// Seals the root `current` opens under `newKey` as well; returns the new key's id. Doing it
    /// again is harmless.
    public func addKey(_ newKey: MasterKey, current: MasterKey) async throws -> String {
        let root = try await unlock(with: current)
        _ = try await database.autocommit {
            try await $0.masterKeySeals.insert(MasterKeySeal(root: root, under: newKey, created: Clock.now))
        }
        return MasterKeySeal.keyID(of: newKey)
    }

    /// Deletes the seals of every key but `current`, which must open the root; returns their ids.
    public func retireOtherKeys(current: MasterKey) async throws -> [String] {
        _ = try await unlock(with: current)
        let keyID = MasterKeySeal.keyID(of: current)
        return try await database.autocommit { try await $0.masterKeySeals.deleteAll(except: keyID) }
    }

    /// The ids of the keys that open the root, oldest first, with when each was added.
    public func acceptedKeys() async throws -> [(keyID: String, created: Int)] {
        try await database.autocommit { try await $0.masterKeySeals.all() }.map { ($0.keyID, $0.created) }
    }

    private static func open(_ seal: MasterKeySeal, with masterKey: MasterKey) throws -> MasterKey {
        do {
            return try seal.open(with: masterKey)
        } catch {
            throw MasterKeyServiceError.corruptSeal(keyID: seal.keyID)
        }
    }
}

public enum MasterKeyServiceError: Error, CustomStringConvertible, Equatable {
    case notAccepted(keyID: String, accepted: [String])
    case corruptSeal(keyID: String)

    public var description: String {
        switch self {
        case .notAccepted(let keyID, let accepted):
            "The master key (id \(keyID)) is not one this database accepts (\(accepted.joined(separator: ", "))). "
                + "Use the key the other instances use, or add this one with `purse master-key add`, run with a key it accepts."
        case .corruptSeal(let keyID):
            "The database's seal for the master key \(keyID) does not open with it: the seal was changed or damaged."
        }
    }
}
