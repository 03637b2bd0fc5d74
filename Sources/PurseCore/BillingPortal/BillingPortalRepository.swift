public import PurseModels

/// The customer portal's configurations (one of them each account's default) and sessions.
public protocol BillingPortalRepository {
    func insertConfiguration(_ configuration: BillingPortalConfiguration, account: String) async throws

    /// Inserts `configuration` as the account's default unless the account has one already.
    func insertDefaultConfigurationIfMissing(_ configuration: BillingPortalConfiguration, account: String) async throws

    /// A configuration of `account` by id, or its default for `default`; `lock` keeps the row
    /// locked for an update until the transaction ends.
    func findConfiguration(_ id: String, account: String, lock: Bool) async throws -> BillingPortalConfiguration?

    /// Writes what may change: everything but the id, the default flag and the creation time.
    func updateConfiguration(_ configuration: BillingPortalConfiguration, account: String) async throws

    /// Configurations of `account`, newest first, optionally only those with the given flags.
    func listConfigurations(
        account: String, active: Bool?, isDefault: Bool?, pagination: Pagination
    ) async throws -> Page<BillingPortalConfiguration>

    func insertSession(_ session: StoredPortalSession) async throws

    /// Opens session `id` at `now` and records the visit: the session when it is still open
    /// (``PortalSessionLifetime``: not revoked, its customer not deleted), nil otherwise.
    func visitSession(_ id: String, now: Int, lifetime: PortalSessionLifetime) async throws -> StoredPortalSession?

    /// Marks the session's flow completed at `now`.
    func completeSession(_ id: String, account: String, now: Int) async throws

    /// Revokes every session of the customer still open at `now`; returns how many.
    func revokeSessions(customer: String, account: String, now: Int, lifetime: PortalSessionLifetime) async throws -> Int
}
