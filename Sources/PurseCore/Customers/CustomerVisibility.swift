import Postgres

/// Whether a caller may see a customer: it exists, is not deleted, is in the caller's account,
/// and for a customer's credential is that very customer.
enum CustomerVisibility {
    static func isVisible(_ customer: String, by caller: Credential, on connection: isolated PostgresConnection) async throws -> Bool {
        !(try await connection.query(query(customer, by: caller)).isEmpty)
    }

    static func isVisible(_ customer: String, by caller: Credential, pool: PostgresClient) async throws -> Bool {
        !(try await pool.query(query(customer, by: caller)).isEmpty)
    }

    private static func query(_ customer: String, by caller: Credential) -> PostgresQuery {
        "SELECT 1 FROM customers WHERE id = \(customer) AND \(CustomerService.scope(caller)) AND NOT deleted"
    }
}
