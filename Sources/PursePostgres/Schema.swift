public import Postgres
import PurseSQL

/// Purse's schema as a ``Migrator`` over the migrations compiled into the binary.
public enum Schema {
    public static func migrator() throws -> Migrator {
        try Migrator(migrations: PurseSQL.files.map { try Migration(fileName: $0.name, sql: $0.sql) })
    }
}
