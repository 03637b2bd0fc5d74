public import Postgres

extension LiveServer {
    /// Runs `change`, SQL that ends a credential, and returns once this server has heard of it.
    ///
    /// The server keeps credentials in memory and empties that cache when PostgreSQL's NOTIFY
    /// arrives, a moment after the commit: a call made at once could still be served from
    /// memory. So a probe key of `customer`, used once to be cached, is expired in the same
    /// transaction, and the wait lasts until the probe is refused (the notifications of one
    /// commit arrive together).
    public func endCredential(_ change: PostgresQuery, account: TestAccount, customer: String) async throws {
        let (probeID, probeSecret) = try await account.ephemeralKey(for: customer)
        let probe = account.client(key: probeSecret)
        guard try await probe.get("/v1/customers/\(customer)").status == 200 else {
            throw TestSetupError("The probe key was refused before the change")
        }
        try await pool.withTransaction { connection in
            try await connection.query(change)
            try await connection.query("UPDATE ephemeral_keys SET expires = extract(epoch FROM now())::bigint - 1 WHERE id = \(probeID)")
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while try await probe.get("/v1/customers/\(customer)").status != 401 {
            guard ContinuousClock.now < deadline else { throw TestSetupError("The server never heard of the change") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
