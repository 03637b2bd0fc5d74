import PurseModels

@testable import PurseCore

/// A row of `ephemeral_keys`.
struct EphemeralKeyRow: Sendable {
    let id: String
    let account: String
    let customer: String
    let hash: [UInt8]
    let created: Int
    let expires: Int
    var sheetSettings: String?
    var revokedAt: Int?

    /// The key as a read builds it: without its secret.
    var key: EphemeralKey { EphemeralKey(id: id, customer: customer, created: created, expires: expires, secret: nil) }
}

/// A row of `customer_sessions`.
struct CustomerSessionRow: Sendable {
    /// The session without its client secret, with its sheet settings.
    var session: CustomerSession
    let account: String
    let clientSecretHash: [UInt8]
    let apiKeyHash: [UInt8]
    var revokedAt: Int?

    var id: String { session.id }
}

/// ``CustomerCredentialRepository`` on ``InMemoryDatabase``.
struct InMemoryCustomerCredentialRepository: CustomerCredentialRepository {
    let database: InMemoryDatabase

    // MARK: - Ephemeral keys

    func insertEphemeralKey(
        _ key: EphemeralKey, customer: String, account: String, secretHash: [UInt8], sheetSettings: String?
    ) async throws -> Int? {
        try await database.write { state in
            // INSERT ... SELECT FROM customers WHERE live in `account`: no row, no key.
            guard state.isLiveCustomer(customer, account: account) else { return nil }
            let created = state.clockTime(ofCustomer: customer) ?? key.created
            guard state.ephemeralKeys[key.id] == nil else { throw InMemoryDatabaseError.constraint("ephemeral_keys_pkey") }
            try state.checkSheetSettingsExist(sheetSettings, constraint: "ephemeral_keys_sheet_settings_id_fkey")
            state.ephemeralKeys[key.id] = EphemeralKeyRow(
                id: key.id, account: account, customer: customer, hash: secretHash, created: created,
                expires: created + key.expires - key.created, sheetSettings: sheetSettings, revokedAt: nil
            )
            return created
        }
    }

    func revokeEphemeralKey(_ id: String, account: String) async throws -> EphemeralKey? {
        try await database.write { state in
            guard var row = state.ephemeralKeys[id], row.account == account else { return nil }
            row.revokedAt = row.revokedAt ?? state.now  // coalesce(revoked_at, now())
            state.ephemeralKeys[id] = row
            return row.key
        }
    }

    func revokeEphemeralKeys(customer: String, account: String, now: Int) async throws -> Int {
        try await database.write { state in
            let ids = state.ephemeralKeys.values.filter {
                $0.account == account && $0.customer == customer && $0.revokedAt == nil && $0.expires > now
            }.map(\.id)
            let time = state.now
            for id in ids { state.ephemeralKeys[id]?.revokedAt = time }
            return ids.count
        }
    }

    func deleteEphemeralKeys(expiredFor grace: Int, now: Int) async throws -> Int {
        try await database.write { state in
            let ids = state.ephemeralKeys.values.filter { $0.expires < (state.liveClockTime(ofCustomer: $0.customer) ?? now) - grace }
                .map(\.id)
            for id in ids { state.ephemeralKeys[id] = nil }
            return ids.count
        }
    }

    // MARK: - Customer sessions

    func insertSession(_ session: CustomerSession, account: String, clientSecretHash: [UInt8], apiKeyHash: [UInt8]) async throws -> Int? {
        try await database.write { state in
            guard state.isLiveCustomer(session.customer, account: account) else { return nil }
            let created = state.clockTime(ofCustomer: session.customer) ?? session.created
            guard state.customerSessions[session.id] == nil else { throw InMemoryDatabaseError.constraint("customer_sessions_pkey") }
            try state.checkSheetSettingsExist(session.customerSheetSettings, constraint: "customer_sessions_sheet_settings_id_fkey")
            var stored = CustomerSession(
                id: session.id, clientSecret: nil, components: session.components, created: created, customer: session.customer,
                expiresAt: created + session.expiresAt - session.created
            )
            stored.customerSheetSettings = session.customerSheetSettings
            state.customerSessions[session.id] = CustomerSessionRow(
                session: stored, account: account, clientSecretHash: clientSecretHash, apiKeyHash: apiKeyHash, revokedAt: nil
            )
            return created
        }
    }

    func revokeSession(_ id: String, account: String) async throws -> CustomerSession? {
        try await database.write { state in
            guard var row = state.customerSessions[id], row.account == account else { return nil }
            row.revokedAt = row.revokedAt ?? state.now  // coalesce(revoked_at, now())
            state.customerSessions[id] = row
            return row.session
        }
    }

    func session(clientSecretHash: [UInt8], account: String) async throws -> StoredCustomerSession? {
        await database.read { state in
            // Any account's customer, as the EXISTS does: the session's account is what is checked.
            guard
                let row = state.customerSessions.values.first(where: {
                    $0.clientSecretHash == clientSecretHash && $0.account == account
                        && state.customers[$0.session.customer].map { !$0.deleted } == true
                })
            else { return nil }
            return StoredCustomerSession(
                session: row.session, clientSecretHash: row.clientSecretHash, isRevoked: row.revokedAt != nil,
                clockTime: state.clockTime(ofCustomer: row.session.customer)
            )
        }
    }

    func sessionClientSecretHash(_ id: String, account: String) async throws -> [UInt8]? {
        await database.read { state in state.customerSessions[id].flatMap { $0.account == account ? $0.clientSecretHash : nil } }
    }

    func revokeSessions(customer: String, account: String, now: Int) async throws -> Int {
        try await database.write { state in
            let ids = state.customerSessions.values.filter {
                $0.account == account && $0.session.customer == customer && $0.revokedAt == nil && $0.session.expiresAt > now
            }.map(\.id)
            let time = state.now
            for id in ids { state.customerSessions[id]?.revokedAt = time }
            return ids.count
        }
    }

    func deleteSessions(expiredFor grace: Int, now: Int) async throws -> Int {
        try await database.write { state in
            let ids = state.customerSessions.values.filter {
                $0.session.expiresAt < (state.liveClockTime(ofCustomer: $0.session.customer) ?? now) - grace
            }.map(\.id)
            for id in ids { state.customerSessions[id] = nil }
            return ids.count
        }
    }

    // MARK: - Authentication

    func credential(keyHash hash: [UInt8]) async throws -> StoredCustomerCredential? {
        await database.read { state in
            func live(_ customer: String) -> Bool { state.customers[customer].map { !$0.deleted } == true }
            if let key = state.ephemeralKeys.values.first(where: { $0.hash == hash && $0.revokedAt == nil && live($0.customer) }) {
                return StoredCustomerCredential(
                    id: key.id, accountID: key.account, customerID: key.customer, hash: key.hash, expires: key.expires, components: nil,
                    sheetSettingsID: key.sheetSettings, clockTime: state.clockTime(ofCustomer: key.customer)
                )
            }
            if let row = state.customerSessions.values.first(where: {
                $0.apiKeyHash == hash && $0.revokedAt == nil && live($0.session.customer)
            }) {
                return StoredCustomerCredential(
                    id: row.id, accountID: row.account, customerID: row.session.customer, hash: row.apiKeyHash,
                    expires: row.session.expiresAt, components: row.session.components, sheetSettingsID: row.session.customerSheetSettings,
                    clockTime: state.clockTime(ofCustomer: row.session.customer)
                )
            }
            return nil
        }
    }
}

extension InMemoryState {
    /// A customer of `account` that is not deleted: what a credential's insert selects.
    func isLiveCustomer(_ id: String, account: String) -> Bool {
        guard let row = customers[id] else { return false }
        return row.account == account && !row.deleted
    }

    /// The foreign key of a credential's sheet settings.
    func checkSheetSettingsExist(_ id: String?, constraint: String) throws {
        guard let id else { return }
        guard sheetSettings[id] != nil else { throw InMemoryDatabaseError.constraint(constraint) }
    }
}
