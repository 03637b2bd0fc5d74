import Foundation
import PurseCore

/// The account `purse serve` makes for itself in local-default mode. Its keys are kept in the
/// data folder (mode 0600) so they are the same on every start.
enum DevelopmentAccount {
    static func prepare(in dataDirectory: URL, accounts: AccountService) async throws -> DevelopmentKeys {
        let file = dataDirectory.appendingPathComponent("development-account.json")
        if let data = try? Data(contentsOf: file), let keys = try? JSONDecoder().decode(DevelopmentKeys.self, from: data) {
            try await accounts.ensureDevelopmentAccount(keys)
            return keys
        }
        let keys = try await accounts.issueDevelopmentKeys()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        _ = FileManager.default.createFile(atPath: file.path, contents: nil, attributes: [.posixPermissions: 0o600])
        try encoder.encode(keys).write(to: file)
        return keys
    }
}
