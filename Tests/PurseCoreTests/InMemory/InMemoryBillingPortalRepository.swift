import PurseModels

@testable import PurseCore

/// A row of `billing_portal_configurations`.
struct PortalConfigurationRow: KeysetRow {
    var configuration: BillingPortalConfiguration
    var account: String
    let seq: Int

    var id: String { configuration.id }
    var created: Int { configuration.created }
}

/// A row of `billing_portal_sessions`.
struct PortalSessionRow: Sendable {
    var stored: StoredPortalSession
    var revokedAt: Int?
}

/// ``BillingPortalRepository`` on ``InMemoryDatabase``.
struct InMemoryBillingPortalRepository: BillingPortalRepository {
    let database: InMemoryDatabase

    func insertConfiguration(_ configuration: BillingPortalConfiguration, account: String) async throws {
        try await database.write { state in
            guard state.portalConfigurations[configuration.id] == nil else {
                throw InMemoryDatabaseError.constraint("billing_portal_configurations_pkey")
            }
            if configuration.isDefault, Self.hasDefault(account, in: state) {
                throw InMemoryDatabaseError.constraint("billing_portal_configurations_one_default")
            }
            state.portalConfigurations[configuration.id] = PortalConfigurationRow(
                configuration: configuration, account: account, seq: state.nextSeq()
            )
        }
    }

    func insertDefaultConfigurationIfMissing(_ configuration: BillingPortalConfiguration, account: String) async throws {
        try await database.write { state in
            guard !Self.hasDefault(account, in: state) else { return }
            state.portalConfigurations[configuration.id] = PortalConfigurationRow(
                configuration: configuration, account: account, seq: state.nextSeq()
            )
        }
    }

    func findConfiguration(_ id: String, account: String, lock: Bool) async throws -> BillingPortalConfiguration? {
        await database.read { state in
            state.portalConfigurations.values.first { row in
                row.account == account && (id == "default" ? row.configuration.isDefault : row.id == id)
            }?
            .configuration
        }
    }

    func updateConfiguration(_ configuration: BillingPortalConfiguration, account: String) async throws {
        try await database.write { state in
            guard var row = state.portalConfigurations[configuration.id], row.account == account else { return }
            var updated = configuration
            updated.isDefault = row.configuration.isDefault
            updated.created = row.configuration.created
            row.configuration = updated
            state.portalConfigurations[configuration.id] = row
        }
    }

    func listConfigurations(
        account: String, active: Bool?, isDefault: Bool?, pagination: Pagination
    ) async throws -> Page<BillingPortalConfiguration> {
        try await database.read { state in
            try InMemoryKeysetList.page(
                state.portalConfigurations.values,
                where: { row in
                    row.account == account && (active.map { $0 == row.configuration.active } ?? true)
                        && (isDefault.map { $0 == row.configuration.isDefault } ?? true)
                },
                pagination: pagination, noun: "billing portal configuration", decode: \.configuration
            )
        }
    }

    func insertSession(_ session: StoredPortalSession) async throws {
        try await database.write { state in
            guard state.portalSessions[session.session.id] == nil else { throw InMemoryDatabaseError.constraint("billing_portal_sessions_pkey") }
            state.portalSessions[session.session.id] = PortalSessionRow(stored: session)
        }
    }

    func visitSession(_ id: String, now: Int, lifetime: PortalSessionLifetime) async throws -> StoredPortalSession? {
        try await database.write { state in
            guard var row = state.portalSessions[id], row.revokedAt == nil,
                let customer = state.customers[row.stored.session.customer], !customer.deleted
            else { return nil }
            guard lifetime.isOpen(created: row.stored.session.created, lastActive: row.stored.lastActive, now: now) else { return nil }
            row.stored.lastActive = now
            state.portalSessions[id] = row
            var visited = row.stored
            visited.customerClockTime = state.clockTime(ofCustomer: customer.id)
            return visited
        }
    }

    func completeSession(_ id: String, account: String, now: Int) async throws {
        try await database.write { state in
            guard state.portalSessions[id]?.stored.accountID == account else { return }
            if state.portalSessions[id]?.stored.completedAt == nil { state.portalSessions[id]?.stored.completedAt = now }
        }
    }

    func revokeSessions(customer: String, account: String, now: Int, lifetime: PortalSessionLifetime) async throws -> Int {
        try await database.write { state in
            var count = 0
            for (id, row) in state.portalSessions
            where row.stored.accountID == account && row.stored.session.customer == customer && row.revokedAt == nil
                && lifetime.isOpen(created: row.stored.session.created, lastActive: row.stored.lastActive, now: now)
            {
                state.portalSessions[id]?.revokedAt = now
                count += 1
            }
            return count
        }
    }

    private static func hasDefault(_ account: String, in state: InMemoryState) -> Bool {
        state.portalConfigurations.values.contains { $0.account == account && $0.configuration.isDefault }
    }
}
