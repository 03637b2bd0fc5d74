import Foundation

/// Holds the customer credential and renews it through the app's provider: when it is due, and
/// once after the server refuses it (401). Callers that need one while it is being fetched wait
/// for that fetch instead of calling the provider again, so a burst of calls costs one provider
/// call.
actor CustomerCredentialCache {
    typealias Loader = @Sendable () async throws -> CustomerCredential

    private let load: Loader
    private var cached: CustomerCredential?
    /// Callers waiting for the fetch under way; nil when none is.
    private var waiting: [CheckedContinuation<CustomerCredential, any Error>]?
    /// The customer of the last credential held, kept when it is dropped (for offline reads).
    private(set) var lastCustomerID: String?

    init(load: @escaping Loader) {
        self.load = load
    }

    /// A credential that is not due for renewal.
    func current() async throws -> CustomerCredential {
        if let cached, cached.renewAfter > Date() { return cached }
        return try await fetch()
    }

    /// A new credential after the server refused `stale`; the one another caller already
    /// fetched meanwhile, if any.
    func renew(after stale: CustomerCredential) async throws -> CustomerCredential {
        if let cached, cached != stale, cached.renewAfter > Date() { return cached }
        cached = nil
        return try await fetch()
    }

    private func fetch() async throws -> CustomerCredential {
        if waiting != nil {
            return try await withCheckedThrowingContinuation { continuation in
                waiting?.append(continuation)
            }
        }
        waiting = []
        let result: Result<CustomerCredential, any Error>
        do {
            result = .success(try await load())
        } catch {
            result = .failure(error)
        }
        if case .success(let credential) = result {
            cached = credential
            lastCustomerID = credential.customerID
        }
        let waiters = waiting ?? []
        waiting = nil
        for waiter in waiters { waiter.resume(with: result) }
        return try result.get()
    }
}
