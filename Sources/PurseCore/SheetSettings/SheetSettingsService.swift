public import Postgres
public import PurseModels

/// `/v1/customer_sheet_settings`: managed with the secret key; read by clients through
/// `/current` and the elements session. Every account has one default.
public struct SheetSettingsService: Sendable {
    private let pool: PostgresClient
    private let caches: ChangeCaches

    public init(pool: PostgresClient, caches: ChangeCaches) {
        self.pool = pool
        self.caches = caches
    }

    static let columns = """
        id, created, name, is_default, payment_method_types, billing_details_collection, default_billing_details,
        saved_payment_method_filter, duplicate_cards
        """

    static let list = KeysetList(table: "customer_sheet_settings", columns: columns, noun: "customer sheet settings")

    public struct ListParameters: Decodable, Sendable, PaginatedParameters {
        public var limit: Int?
        public var startingAfter: String?
        public var endingBefore: String?

        enum CodingKeys: String, CodingKey {
            case limit
            case startingAfter = "starting_after"
            case endingBefore = "ending_before"
        }
    }

    public func create(_ params: SheetSettingsParameters, by caller: Credential) async throws -> CustomerSheetSettings {
        let settings = try params.applied(to: .initial(id: ObjectID.make(.sheetSettings), name: nil, isDefault: false, created: Clock.now))
        try await pool.withConnection { try await Self.insert(settings, account: caller.accountID, on: $0) }
        caches.invalidate(topic: ChangeCaches.sheetSettingsTopic)
        return settings
    }

    /// By id, or `default` for the account's default.
    public func retrieve(_ id: String, by caller: Credential) async throws -> CustomerSheetSettings {
        try await pool.withConnection { try await Self.find(id, account: caller.accountID, on: $0) }
    }

    public func update(_ id: String, _ params: SheetSettingsParameters, by caller: Credential) async throws -> CustomerSheetSettings {
        // This server forgets at once; the others when the trigger's NOTIFY reaches them.
        defer { caches.invalidate(topic: ChangeCaches.sheetSettingsTopic) }
        return try await pool.withTransaction { connection in
            let old = try await Self.find(id, account: caller.accountID, lock: .update, on: connection)
            let new = try params.applied(to: old)
            try await connection.query(
                """
                UPDATE customer_sheet_settings
                SET name = \(new.name), payment_method_types = \(PostgresTextArray(new.paymentMethodTypes)),
                    billing_details_collection = \(StoredJSON.encode(new.billingDetailsCollection)),
                    default_billing_details = \(StoredJSON.encode(new.defaultBillingDetails)),
                    saved_payment_method_filter = \(StoredJSON.encode(new.savedPaymentMethodFilter)),
                    duplicate_cards = \(new.duplicateCards)
                WHERE id = \(old.id) AND account_id = \(caller.accountID)
                """
            )
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
        return try await pool.withTransaction { connection in
            let settings = try await Self.find(id, account: caller.accountID, lock: .update, on: connection)
            guard !settings.isDefault else {
                throw PurseError.invalidParameter("id", "The account's default settings cannot be deleted; update them instead.")
            }
            try await connection.query("DELETE FROM customer_sheet_settings WHERE id = \(settings.id) AND account_id = \(caller.accountID)")
            return DeletedObject(id: settings.id, object: "customer_sheet_settings")
        }
    }

    public func list(_ params: ListParameters, by caller: Credential) async throws -> Page<CustomerSheetSettings> {
        let pagination = try params.pagination()
        let filter: PostgresQuery = "account_id = \(caller.accountID)"
        return try await pool.withConnection { connection in
            try await Self.list.page(on: connection, where: filter, pagination: pagination, decode: Self.settings)
        }
    }

    /// The settings in force for `caller`: `named` (a setup intent's, say), else the ones its key
    /// or session was created with, else the account's default.
    public func inForce(for caller: Credential, named: String? = nil) async throws -> CustomerSheetSettings {
        try await Self.inForce(for: caller, named: named, pool: pool, cache: caches.sheetSettings)
    }

    /// With a `cache`, settings read once are kept until a change to any settings empties it
    /// (the listing a sheet does on every open then costs one statement fewer).
    static func inForce(
        for caller: Credential, named: String? = nil, on connection: isolated PostgresConnection,
        cache: ChangeCache<String, CustomerSheetSettings>? = nil
    ) async throws -> CustomerSheetSettings {
        let id = settingsID(for: caller, named: named)
        guard let cache else { return try await find(id, account: caller.accountID, on: connection) }
        let key = cacheKey(account: caller.accountID, id: id)
        if let cached = cache.value(for: key) { return cached }
        let ticket = cache.ticket()
        let settings = try await find(id, account: caller.accountID, on: connection)
        cache.store(settings, for: key, ticket: ticket)
        return settings
    }

    /// ``inForce(for:named:on:cache:)`` for a caller outside a transaction: from the cache alone
    /// when it holds them, so a hit costs no trip to the pool.
    static func inForce(
        for caller: Credential, named: String?, pool: PostgresClient, cache: ChangeCache<String, CustomerSheetSettings>
    ) async throws -> CustomerSheetSettings {
        let key = cacheKey(account: caller.accountID, id: settingsID(for: caller, named: named))
        if let cached = cache.value(for: key) { return cached }
        return try await pool.withConnection { try await inForce(for: caller, named: named, on: $0, cache: cache) }
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
    static func bindable(_ id: String?, account: String, on connection: isolated PostgresConnection) async throws -> String? {
        guard let id else { return nil }
        return try await find(id, account: account, lock: .keyShare, on: connection, param: "customer_sheet_settings").id
    }

    /// Creates an account's default settings (in the account's creating transaction).
    static func createDefault(account: String, on connection: isolated PostgresConnection) async throws {
        try await insert(
            .initial(id: ObjectID.make(.sheetSettings), name: nil, isDefault: true, created: Clock.now), account: account, on: connection)
    }

    private static func insert(_ settings: CustomerSheetSettings, account: String, on connection: isolated PostgresConnection) async throws {
        try await connection.query(
            """
            INSERT INTO customer_sheet_settings (id, account_id, created, name, is_default, payment_method_types,
                billing_details_collection, default_billing_details, saved_payment_method_filter, duplicate_cards)
            VALUES (\(settings.id), \(account), \(settings.created), \(settings.name), \(settings.isDefault),
                    \(PostgresTextArray(settings.paymentMethodTypes)), \(StoredJSON.encode(settings.billingDetailsCollection)),
                    \(StoredJSON.encode(settings.defaultBillingDetails)), \(StoredJSON.encode(settings.savedPaymentMethodFilter)),
                    \(settings.duplicateCards))
            """
        )
    }

    /// How ``find`` locks the row it reads, for the rest of the transaction.
    enum RowLock {
        /// To change or delete it.
        case update
        /// To point at it: it may change meanwhile but not go.
        case keyShare
    }

    static func find(
        _ id: String, account: String, lock: RowLock? = nil, on connection: isolated PostgresConnection, param: String = "id"
    ) async throws -> CustomerSheetSettings {
        var query: PostgresQuery = "SELECT \(unsafeSQL: columns) FROM customer_sheet_settings WHERE account_id = \(account)"
        query.append(id == "default" ? " AND is_default" : " AND id = \(id)")
        switch lock {
        case .update: query.append(" FOR UPDATE")
        case .keyShare: query.append(" FOR KEY SHARE")
        case nil: break
        }
        guard let row = try await connection.query(query).first else {
            throw PurseError.noSuch("customer sheet settings", id, param: param)
        }
        return try settings(row)
    }

    static func settings(_ row: PostgresRow) throws -> CustomerSheetSettings {
        CustomerSheetSettings(
            id: try row["id"], name: try row["name"], isDefault: try row["is_default"], created: try row["created"],
            paymentMethodTypes: try row["payment_method_types", as: PostgresTextArray.self].elements,
            billingDetailsCollection: try StoredJSON.decode(
                CustomerSheetSettings.BillingDetailsCollection.self, from: try row["billing_details_collection"]
            ),
            defaultBillingDetails: try StoredJSON.decode(BillingDetails.self, from: try row["default_billing_details"]),
            savedPaymentMethodFilter: try StoredJSON.decode(
                CustomerSheetSettings.SavedPaymentMethodFilter.self, from: try row["saved_payment_method_filter"]
            ),
            duplicateCards: try row["duplicate_cards"]
        )
    }
}
