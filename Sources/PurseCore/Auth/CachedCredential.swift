/// A credential as the authenticator keeps it in memory: with its expiry, checked at every use.
public struct CachedCredential: Sendable {
    public let credential: Credential
    /// Unix seconds after which the key is expired (ephemeral keys and sessions), or nil.
    public let expires: Int?
}
