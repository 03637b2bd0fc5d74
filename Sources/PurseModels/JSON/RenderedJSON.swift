/// A JSON value already written as compact UTF-8, which a response splices in as it is.
///
/// Lists of stored objects render each row straight to bytes this way, instead of building a
/// model and then a ``JSONValue`` per object; see `PaymentMethodStore.rendered`.
public struct RenderedJSON: Sendable, Hashable {
    public var bytes: [UInt8]

    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }
}
