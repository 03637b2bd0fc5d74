import ArgumentParser
import Foundation

/// The settings every subcommand that touches the database takes, each from its flag or else
/// its environment variable.
struct DatabaseOptions: ParsableArguments {
    @Option(
        name: .customLong("database-url"),
        help: ArgumentHelp(
            "PostgreSQL URL, postgres://user:password@host:5432/database (env DATABASE_URL). Without one, "
                + "Purse runs its own PostgreSQL in the data folder.")
    )
    var databaseURL: String?

    @Option(
        name: .customLong("data-dir"),
        help: ArgumentHelp(
            "Folder for the master key, the local PostgreSQL and the development keys (env PURSE_DATA_DIR; "
                + "default .purse in the current folder).")
    )
    var dataDirectory: String?

    @Option(
        name: .customLong("master-key-file"),
        help: ArgumentHelp(
            "File holding the master key (env PURSE_MASTER_KEY_FILE; default <data-dir>/master.key). "
                + "PURSE_MASTER_KEY, when set, wins over any file.")
    )
    var masterKeyFile: String?

    var resolvedDatabaseURL: String? { databaseURL ?? Environment.value("DATABASE_URL") }

    var resolvedDataDirectory: URL { DataDirectory.resolve(dataDirectory) }

    var resolvedMasterKeyFile: URL {
        if let path = masterKeyFile ?? Environment.value("PURSE_MASTER_KEY_FILE") {
            return URL(fileURLWithPath: path).standardizedFileURL
        }
        return resolvedDataDirectory.appendingPathComponent("master.key")
    }
}

/// The data folder: the flag, else `PURSE_DATA_DIR`, else `.purse` in the current folder.
enum DataDirectory {
    static func resolve(_ flag: String?) -> URL {
        let path = flag ?? Environment.value("PURSE_DATA_DIR") ?? ".purse"
        return URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
            .standardizedFileURL
    }
}

/// Reads environment variables, treating an empty value as unset.
enum Environment {
    static func value(_ name: String) -> String? {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else { return nil }
        return value
    }

    /// A yes/no variable: 1, true or yes (any case) mean yes.
    static func flag(_ name: String) -> Bool {
        guard let value = value(name)?.lowercased() else { return false }
        return ["1", "true", "yes"].contains(value)
    }
}
