/// The customer a change is about, as every change to a customer or its payment methods first
/// takes it: live, in the caller's view, and locked for the rest of the transaction, so changes
/// to one customer never race.
enum CustomerAccess {
    /// The live customer `id`, locked; `resource_missing` naming `param` when it is not in view.
    static func lockLive(
        _ id: String, by caller: Credential, param: String = "id", in repositories: Repositories
    ) async throws
        -> StoredCustomer
    {
        guard let stored = try await repositories.customers.lockLive(id, visibleTo: caller.visibility) else {
            throw PurseError.noSuch("customer", id, param: param)
        }
        return stored
    }
}
