import PurseModels

@testable import PurseCore

/// A row of `customer_sheet_settings`.
struct SheetSettingsRow: KeysetRow {
    var settings: CustomerSheetSettings
    var account: String
    let seq: Int

    var id: String { settings.id }
    var created: Int { settings.created }
}

/// ``SheetSettingsRepository`` on ``InMemoryDatabase``.
struct InMemorySheetSettingsRepository: SheetSettingsRepository {
    let database: InMemoryDatabase

    func insert(_ settings: CustomerSheetSettings, account: String) async throws {
        try await database.write { state in
            guard state.sheetSettings[settings.id] == nil else { throw InMemoryDatabaseError.constraint("customer_sheet_settings_pkey") }
            if settings.isDefault, state.sheetSettings.values.contains(where: { $0.account == account && $0.settings.isDefault }) {
                throw InMemoryDatabaseError.constraint("customer_sheet_settings_one_default")
            }
            state.sheetSettings[settings.id] = SheetSettingsRow(settings: settings, account: account, seq: state.nextSeq())
        }
    }

    func find(_ id: String, account: String, lock: SheetSettingsLock?) async throws -> CustomerSheetSettings? {
        await database.read { state in
            state.sheetSettings.values.first { row in
                row.account == account && (id == "default" ? row.settings.isDefault : row.id == id)
            }?
            .settings
        }
    }

    func update(_ settings: CustomerSheetSettings, account: String) async throws {
        try await database.write { state in
            guard var row = state.sheetSettings[settings.id], row.account == account else { return }
            row.settings.name = settings.name
            row.settings.paymentMethodTypes = settings.paymentMethodTypes
            row.settings.billingDetailsCollection = settings.billingDetailsCollection
            row.settings.defaultBillingDetails = settings.defaultBillingDetails
            row.settings.savedPaymentMethodFilter = settings.savedPaymentMethodFilter
            row.settings.duplicateCards = settings.duplicateCards
            state.sheetSettings[settings.id] = row
        }
    }

    func delete(_ id: String, account: String) async throws {
        try await database.write { state in
            guard state.sheetSettings[id]?.account == account else { return }
            state.sheetSettings[id] = nil
            // ON DELETE SET NULL: intents that named them fall back to the default.
            for (intentID, row) in state.setupIntents where row.stored.intent.customerSheetSettings == id {
                state.setupIntents[intentID]?.stored.intent.customerSheetSettings = nil
            }
            // And credentials bound to them, likewise.
            for (keyID, row) in state.ephemeralKeys where row.sheetSettings == id { state.ephemeralKeys[keyID]?.sheetSettings = nil }
            for (sessionID, row) in state.customerSessions where row.session.customerSheetSettings == id {
                state.customerSessions[sessionID]?.session.customerSheetSettings = nil
            }
        }
    }

    func hasDefault(account: String) async throws -> Bool {
        await database.read { state in state.sheetSettings.values.contains { $0.account == account && $0.settings.isDefault } }
    }

    func list(account: String, pagination: Pagination) async throws -> Page<CustomerSheetSettings> {
        try await database.read { state in
            try InMemoryKeysetList.page(
                state.sheetSettings.values, where: { $0.account == account }, pagination: pagination,
                noun: "customer sheet settings", decode: \.settings
            )
        }
    }
}
