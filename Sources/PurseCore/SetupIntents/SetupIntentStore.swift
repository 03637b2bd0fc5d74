import Foundation
import Postgres
public import PurseModels

/// A setup intent as stored, with what rendering needs beyond the object.
struct StoredSetupIntent: Sendable {
    var intent: SetupIntent
    var accountID: String
    var attempt: Int
    var returnURL: String?
    /// Whether the pending confirmation came from a client credential.
    var confirmedByClient: Bool
}

/// The SQL and rendering of setup intents.
enum SetupIntentStore {
    static let columns = """
        id, account_id, created, customer_id, status, usage, payment_method_types, payment_method_id, description, metadata,
        return_url, cancellation_reason, last_setup_error, mandate, authentication_attempt, sheet_settings_id,
        confirmed_by_client
        """

    static let list = KeysetList(table: "setup_intents", columns: columns, noun: "setup intent")

    static func find(
        _ id: String, account: String?, lock: Bool = false, on connection: isolated PostgresConnection
    ) async throws -> StoredSetupIntent? {
        var query = findQuery(id, account: account)
        if lock { query.append(" FOR UPDATE") }
        return try await connection.query(query).first.map(stored)
    }

    /// ``find(_:account:lock:on:)`` outside a transaction: a lone statement, which the pool
    /// answers without one of its threads.
    static func find(_ id: String, account: String, pool: PostgresClient) async throws -> StoredSetupIntent? {
        try await pool.query(findQuery(id, account: account)).first.map(stored)
    }

    private static func findQuery(_ id: String, account: String?) -> PostgresQuery {
        var query: PostgresQuery = "SELECT \(unsafeSQL: columns) FROM setup_intents WHERE id = \(id)"
        if let account { query.append(" AND account_id = \(account)") }
        return query
    }

    /// Runs an INSERT or UPDATE of the intent and reads it as it became (`RETURNING`), rather
    /// than selecting it again in a statement of its own.
    /// Runs an `INSERT` or `UPDATE` of one intent and returns the row it left; an `UPDATE` that
    /// found no row (the intent vanished meanwhile) is `resource_missing`.
    static func write(_ statement: PostgresQuery, on connection: isolated PostgresConnection) async throws -> StoredSetupIntent {
        var query = statement
        query.append(" RETURNING \(unsafeSQL: columns)")
        guard let row = try await connection.query(query).first else {
            throw PurseError(.notFound, code: "resource_missing", message: "The setup intent no longer exists.")
        }
        return try stored(row)
    }

    private static func status(_ text: String) throws -> SetupIntentStatus {
        guard let status = SetupIntentStatus(rawValue: text) else {
            throw PGError(.decoding, message: "A setup intent's row holds an unknown status")
        }
        return status
    }

    static func stored(_ row: PostgresRow) throws -> StoredSetupIntent {
        var intent = SetupIntent(
            id: try row["id"], created: try row["created"], customer: try row["customer_id"],
            description: try row["description"],
            metadata: try StoredJSON.decode(Metadata.self, from: try row["metadata"]),
            paymentMethod: try row["payment_method_id"],
            paymentMethodTypes: try row["payment_method_types", as: PostgresTextArray.self].elements,
            status: try status(try row["status"]), usage: try row["usage"]
        )
        intent.cancellationReason = try row["cancellation_reason"]
        intent.customerSheetSettings = try row["sheet_settings_id"]
        intent.lastSetupError = try StoredJSON.decodeIfPresent(SetupError.self, from: try row["last_setup_error"])
        if let mandate: PostgresJSON = try row["mandate"] {
            intent.mandate = try JSONReader.parse(mandate.text)["id"]?.stringValue
        }
        if intent.paymentMethodTypes.contains("card") {
            intent.paymentMethodOptions = [
                "card": ["mandate_options": .null, "network": .null, "request_three_d_secure": "automatic"]
            ]
        }
        return StoredSetupIntent(
            intent: intent, accountID: try row["account_id"], attempt: try row["authentication_attempt", as: Int32.self].asInt,
            returnURL: try row["return_url"], confirmedByClient: try row["confirmed_by_client"]
        )
    }
}

extension Int32 {
    var asInt: Int { Int(self) }
}

extension SetupIntent {
    /// The object as `caller` may see it: everything for the secret key, Stripe's documented
    /// subset for a publishable key with the client secret.
    public func json(for caller: Credential?) throws -> JSONValue {
        let full = try JSONValueEncoder().encode(self)
        guard caller?.kind == .publishable, case .object(let object) = full else { return full }
        return .object(JSONObject(object.entries.filter { Self.publishableFields.contains($0.key) }.map { ($0.key, $0.value) }))
    }
}
