public import PurseModels

/// How a read of sheet settings locks their row for the rest of the transaction.
public enum SheetSettingsLock: Sendable {
    /// To change or delete them.
    case update
    /// To point at them (a key, session or intent binding them): they may change meanwhile, but
    /// not go.
    case keyShare
}

/// Customer sheet settings; every account has one default.
public protocol SheetSettingsRepository {
    func insert(_ settings: CustomerSheetSettings, account: String) async throws

    /// Settings of `account` by id, or its default for `default`.
    func find(_ id: String, account: String, lock: SheetSettingsLock?) async throws -> CustomerSheetSettings?

    /// Writes what may change: everything but the id, the default flag and the creation time.
    func update(_ settings: CustomerSheetSettings, account: String) async throws

    /// Deletes settings; keys, sessions and intents that named them fall back to the default.
    func delete(_ id: String, account: String) async throws

    /// Whether `account` has its default settings (an account made before settings existed has none).
    func hasDefault(account: String) async throws -> Bool

    /// Settings of `account`, newest first.
    func list(account: String, pagination: Pagination) async throws -> Page<CustomerSheetSettings>
}
