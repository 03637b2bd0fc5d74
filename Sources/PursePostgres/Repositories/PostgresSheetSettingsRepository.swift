import Postgres
import PurseCore
import PurseModels

/// ``SheetSettingsRepository`` on the `customer_sheet_settings` table.
struct PostgresSheetSettingsRepository: SheetSettingsRepository {
    let connection: PostgresConnection

    private static let columns = """
        id, created, name, is_default, payment_method_types, billing_details_collection, default_billing_details,
        saved_payment_method_filter, duplicate_cards
        """

    private static let list = KeysetList(table: "customer_sheet_settings", columns: columns, noun: "customer sheet settings")

    func insert(_ settings: CustomerSheetSettings, account: String) async throws {
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

    func find(_ id: String, account: String, lock: SheetSettingsLock?) async throws -> CustomerSheetSettings? {
        var query: PostgresQuery = "SELECT \(unsafeSQL: Self.columns) FROM customer_sheet_settings WHERE account_id = \(account)"
        query.append(id == "default" ? " AND is_default" : " AND id = \(id)")
        switch lock {
        case .update: query.append(" FOR UPDATE")
        case .keyShare: query.append(" FOR KEY SHARE")
        case nil: break
        }
        return try await connection.query(query).first.map(Self.settings)
    }

    func update(_ settings: CustomerSheetSettings, account: String) async throws {
        try await connection.query(
            """
            UPDATE customer_sheet_settings
            SET name = \(settings.name), payment_method_types = \(PostgresTextArray(settings.paymentMethodTypes)),
                billing_details_collection = \(StoredJSON.encode(settings.billingDetailsCollection)),
                default_billing_details = \(StoredJSON.encode(settings.defaultBillingDetails)),
                saved_payment_method_filter = \(StoredJSON.encode(settings.savedPaymentMethodFilter)),
                duplicate_cards = \(settings.duplicateCards)
            WHERE id = \(settings.id) AND account_id = \(account)
            """
        )
    }

    func delete(_ id: String, account: String) async throws {
        try await connection.query("DELETE FROM customer_sheet_settings WHERE id = \(id) AND account_id = \(account)")
    }

    func hasDefault(account: String) async throws -> Bool {
        !(try await connection.query("SELECT 1 FROM customer_sheet_settings WHERE account_id = \(account) AND is_default").isEmpty)
    }

    func list(account: String, pagination: Pagination) async throws -> Page<CustomerSheetSettings> {
        try await Self.list.page(on: connection, where: "account_id = \(account)", pagination: pagination, decode: Self.settings)
    }

    private static func settings(_ row: PostgresRow) throws -> CustomerSheetSettings {
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
