public import PurseModels

/// `/v1/customer_sheet_settings`: managed with the secret key; read by clients through
/// `/current` and the elements session. Every account has one default.
public struct SheetSettingsService: Sendable {
    private let database: any Database
    private let caches: ChangeCaches

    public init(database: any Database, caches: ChangeCaches) {
        self.database = database
        self.caches = caches
    }

    public func create(_ params: SheetSettingsParameters, by caller: Credential) async throws -> CustomerSheetSettings {
        let settings = try params.applied(to: .initial(id: ObjectID.make(.sheetSettings), name: nil, isDefault: false, created: Clock.now))
        try await database.autocommit { try await $0.sheetSettings.insert(settings, account: caller.accountID) }
        caches.invalidate(topic: ChangeCaches.sheetSettingsTopic)
        return settings
    }

    /// By id, or `default` for the account's default.
    public func retrieve(_ id: String, by caller: Credential) async throws -> CustomerSheetSettings {
        try await database.autocommit { try await Self.find(id, account: caller.accountID, in: $0) }
    }

    public func update(_ id: String, _ params: SheetSettingsParameters, by caller: Credential) async throws -> CustomerSheetSettings {
        // This server forgets at once; the others when the trigger's NOTIFY reaches them.
        defer { caches.invalidate(topic: ChangeCaches.sheetSettingsTopic) }
        return try await database.transaction { repositories in
            let old = try await Self.find(id, account: caller.accountID, lock: .update, in: repositories)
            let new = try params.applied(to: old)
            try await repositories.sheetSettings.update(new, account: caller.accountID)
            return new
        }
    }

    /// Deletes settings other than the default; what named them falls back to the default.
    public func delete(_ id: String, by caller: Credential) async throws -> DeletedObject {
        // The foreign key unbinds the keys and sessions that named them, so cached credentials
        // change too: this server forgets both at once, the others on NOTIFY.
        defer {
            caches.invalidate(topic: ChangeCaches.sheetSettingsTopic)
            caches.invalidate(topic: ChangeCaches.credentialsTopic)
        }
        return try await database.transaction { repositories in
            let settings = try await Self.find(id, account: caller.accountID, lock: .update, in: repositories)
            guard !settings.isDefault else {
                throw PurseError.invalidParameter("id", "The account's default settings cannot be deleted; update them instead.")
            }
            try await repositories.sheetSettings.delete(settings.id, account: caller.accountID)
            return DeletedObject(id: settings.id, object: "customer_sheet_settings")
        }
    }

    public func list(_ params: PageParameters, by caller: Credential) async throws -> Page<CustomerSheetSettings> {
        let pagination = try params.pagination()
        return try await database.autocommit { try await $0.sheetSettings.list(account: caller.accountID, pagination: pagination) }
    }

    /// The settings in force for `caller`: `named` (a setup intent's, say), else the ones its key
    /// or session was created with, else the account's default.
    public func inForce(for caller: Credential, named: String? = nil) async throws -> SheetSettingsInForce {
        try await Self.inForce(for: caller, named: named, database: database, cache: caches.sheetSettings)
    }

    /// With a `cache`, settings read once are kept until a change to any settings empties it
    /// (the listing a sheet does on every open then costs one statement fewer).
    static func inForce(
        for caller: Credential, named: String? = nil, in repositories: Repositories,
        cache: ChangeCache<String, SheetSettingsInForce>? = nil
    ) async throws -> CustomerSheetSettings {
        guard let cache else {
            return try await find(settingsID(for: caller, named: named), account: caller.accountID, in: repositories)
        }
        return try await cached(for: caller, named: named, in: repositories, cache: cache).settings
    }

    /// ``inForce(for:named:in:cache:)`` for a caller outside a unit of work: from the cache
    /// alone when it holds them, so a hit costs no trip to the database.
    static func inForce(
        for caller: Credential, named: String?, database: any Database, cache: ChangeCache<String, SheetSettingsInForce>
    ) async throws -> SheetSettingsInForce {
        let key = cacheKey(account: caller.accountID, id: settingsID(for: caller, named: named))
        if let cached = cache.value(for: key) { return cached }
        return try await database.autocommit { try await cached(for: caller, named: named, in: $0, cache: cache) }
    }

    private static func cached(
        for caller: Credential, named: String?, in repositories: Repositories, cache: ChangeCache<String, SheetSettingsInForce>
    ) async throws -> SheetSettingsInForce {
        let id = settingsID(for: caller, named: named)
        let key = cacheKey(account: caller.accountID, id: id)
        if let cached = cache.value(for: key) { return cached }
        let ticket = cache.ticket()
        let settings = try SheetSettingsInForce(try await find(id, account: caller.accountID, in: repositories))
        cache.store(settings, for: key, ticket: ticket)
        return settings
    }

    /// `named`, else the settings the caller's key or session was created with, else the default.
    private static func settingsID(for caller: Credential, named: String?) -> String {
        named ?? caller.sheetSettingsID ?? "default"
    }

    public static func cacheKey(account: String, id: String) -> String { account + "\u{0}" + id }

    /// Checks that `id` (or `default`) names settings of the account, for binding at creation;
    /// returns the id to store.
    /// Run it in the transaction that stores the binding: the row stays locked (`FOR KEY SHARE`)
    /// until then, so settings deleted meanwhile wait for it (and then unbind it) instead of
    /// vanishing under its foreign key.
    static func bindable(_ id: String?, account: String, in repositories: Repositories) async throws -> String? {
        guard let id else { return nil }
        return try await find(id, account: account, lock: .keyShare, in: repositories, param: "customer_sheet_settings").id
    }

    /// Creates an account's default settings (in the account's creating transaction).
    static func createDefault(account: String, in repositories: Repositories) async throws {
        try await repositories.sheetSettings.insert(
            .initial(id: ObjectID.make(.sheetSettings), name: nil, isDefault: true, created: Clock.now), account: account
        )
    }

    private static func find(
        _ id: String, account: String, lock: SheetSettingsLock? = nil, in repositories: Repositories, param: String = "id"
    ) async throws -> CustomerSheetSettings {
        guard let settings = try await repositories.sheetSettings.find(id, account: account, lock: lock) else {
            throw PurseError.noSuch("customer sheet settings", id, param: param)
        }
        return settings
    }
}
