import Synchronization

/// The absolute base of URLs Purse hands out (the 3D Secure page): the configured public URL, or
/// the address the server listens on, known once it has started.
public final class PublicURL: Sendable {
    private let value: Mutex<String>

    public init(_ initial: String) { value = Mutex(initial) }

    public var base: String { value.withLock { $0 } }

    /// Sets the base (without a trailing slash) once the listening address is known.
    public func set(_ base: String) {
        value.withLock { $0 = base.hasSuffix("/") ? String(base.dropLast()) : base }
    }
}
