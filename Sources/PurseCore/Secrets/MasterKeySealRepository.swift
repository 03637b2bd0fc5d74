/// Where the seals of the secrets root are kept: one per master key instances may hold.
public protocol MasterKeySealRepository {
    /// Every seal, oldest first.
    func all() async throws -> [MasterKeySeal]

    /// Adds `seal` unless its key has one already; returns whether it was added.
    func insert(_ seal: MasterKeySeal) async throws -> Bool

    /// Deletes every seal but `keyID`'s; returns the key ids deleted.
    func deleteAll(except keyID: String) async throws -> [String]
}
