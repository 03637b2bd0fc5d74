import Foundation
import Logging
import PurseCore

/// Finds the master key: `PURSE_MASTER_KEY`, else the key file, which the first subcommand to
/// need it creates (mode 0600) so every later one run from the same place agrees.
enum MasterKeyFile {
    static func load(_ storage: PurseConfiguration.Storage, logger: Logger) throws -> MasterKey {
        if let text = storage.masterKey {
            do {
                return try MasterKey(text: text)
            } catch {
                throw CommandError("PURSE_MASTER_KEY is not usable. \(error)")
            }
        }
        let file = storage.masterKeyFile
        if FileManager.default.fileExists(atPath: file.path) {
            let existing: String
            do {
                existing = try String(contentsOf: file, encoding: .utf8)
            } catch {
                throw CommandError("The master key file \(file.path) cannot be read by this user (\(error.localizedDescription)).")
            }
            do {
                logger.notice("Using the master key in \(file.path); production should set PURSE_MASTER_KEY")
                return try MasterKey(text: existing)
            } catch {
                throw CommandError("The master key file \(file.path) is not usable. \(error)")
            }
        }
        let key = MasterKey.generate()
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true
        )
        // If another process created the file a moment ago, use its key instead.
        guard try PrivateFile.create(key.hexText + "\n", at: file) else { return try load(storage, logger: logger) }
        logger.warning(
            "Created a new master key in \(file.path) (mode 0600). Production should set PURSE_MASTER_KEY explicitly and keep it safe: it protects every stored secret."
        )
        return key
    }
}

/// A failure a subcommand reports to its user in one sentence.
struct CommandError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
