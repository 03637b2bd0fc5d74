import Crypto

/// What a request with an `Idempotency-Key` identifies: the key, in the key space of its account
/// and caller, and what the request asked for.
public struct IdempotentRequest: Sendable {
    public let accountID: String
    /// ``Credential/idempotencyScope``: keys are not shared between callers.
    public let caller: String
    public let key: String
    public let method: String
    public let path: String
    /// SHA-256 of the parameters as sent (content type and body).
    public let parametersHash: [UInt8]

    public init(accountID: String, caller: String, key: String, method: String, path: String, parameters: [UInt8]) {
        self.accountID = accountID
        self.caller = caller
        self.key = key
        self.method = method
        self.path = path
        self.parametersHash = Array(SHA256.hash(data: parameters))
    }
}
