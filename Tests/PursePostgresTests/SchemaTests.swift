import Foundation
import Postgres
import PursePostgres
import PurseSQL
import TestSupport
import Testing

@Suite("The schema")
struct SchemaTests {
    @Test func everyMigrationFileIsCompiledInInOrder() throws {
        let folder = PurseBinary.repository.appendingPathComponent("sql/migrations")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".sql") }.sorted()
        #expect(PurseSQL.files.map(\.name) == files)
        for (name, sql) in PurseSQL.files {
            #expect(try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8) == sql)
        }
        let versions = try Schema.migrator().migrations.map(\.version)
        #expect(versions == Array(1...versions.count))
    }

    @Test func migratesAnEmptyDatabase() async throws {
        try await TestPostgres.withDatabase { client in
            let migrator = try Schema.migrator()
            try await migrator.migrate(client)
            #expect(try await migrator.status(client).isCurrent)
        }
    }
}
