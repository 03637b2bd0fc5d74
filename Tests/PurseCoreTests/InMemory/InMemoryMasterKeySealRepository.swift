@testable import PurseCore

/// ``MasterKeySealRepository`` on ``InMemoryDatabase``.
struct InMemoryMasterKeySealRepository: MasterKeySealRepository {
    let database: InMemoryDatabase

    func all() async throws -> [MasterKeySeal] {
        await database.read { state in state.masterKeySeals.values.sorted { ($0.created, $0.keyID) < ($1.created, $1.keyID) } }
    }

    func insert(_ seal: MasterKeySeal) async throws -> Bool {
        try await database.write { state in
            guard state.masterKeySeals[seal.keyID] == nil else { return false }  // ON CONFLICT (key_id) DO NOTHING
            state.masterKeySeals[seal.keyID] = seal
            return true
        }
    }

    func deleteAll(except keyID: String) async throws -> [String] {
        try await database.write { state in
            let retired = state.masterKeySeals.keys.filter { $0 != keyID }.sorted()
            for id in retired { state.masterKeySeals[id] = nil }
            return retired
        }
    }
}
