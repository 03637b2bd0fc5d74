import NIOConcurrencyHelpers

/// The absolute base of URLs Purse hands out (the 3D Secure page): the configured public URL, or
/// the address the server listens on, known once it has started.
public final class PublicURL: Sendable {
    private let value: NIOLockedValueBox<String>

    public init(_ initial: String) { value = NIOLockedValueBox(initial) }

    public var base: String { value.withLockedValue { $0 } }

    /// Sets the base (without a trailing slash) once the listening address is known.
    public func set(_ base: String) {
        value.withLockedValue { $0 = base.hasSuffix("/") ? String(base.dropLast()) : base }
    }
}
