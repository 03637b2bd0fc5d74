import ArgumentParser
import Foundation
import Postgres

/// The database settings every subcommand that touches the database takes.
struct DatabaseOptions: ParsableArguments {
    @Option(
        name: .customLong("database-url"),
        help: "PostgreSQL URL, postgres://user:password@host:5432/database (env DATABASE_URL)."
    )
    var databaseURL: String?

    /// The URL from the flag, else from `DATABASE_URL`.
    var resolvedURL: String? {
        databaseURL ?? ProcessInfo.processInfo.environment["DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    func configuration() throws -> PostgresConfiguration {
        guard let url = resolvedURL else {
            throw ValidationError("Give a database with --database-url or DATABASE_URL.")
        }
        return try PostgresConfiguration(url: url)
    }
}
