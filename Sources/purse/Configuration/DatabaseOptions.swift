import ArgumentParser

/// The flags every subcommand that touches the database takes; ``PurseConfiguration`` reads
/// them, with their environment variables and defaults.
struct DatabaseOptions: ParsableArguments {
    @Option(
        name: .customLong("database-url"),
        help: ArgumentHelp(
            "PostgreSQL connection string as libpq takes it: postgres://user:password@host:5432/database, several "
                + "hosts as host1:5432,host2:5432?target_session_attrs=read-write, or keyword=value pairs "
                + "(env DATABASE_URL). Without one, Purse runs its own PostgreSQL in the data folder.")
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
}
