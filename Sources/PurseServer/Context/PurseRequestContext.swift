public import Hummingbird
import PurseCore

/// What a request carries through the middleware and its handler.
public struct PurseRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// `req_...`, returned in the `Request-Id` header and on every log line of the request.
    public let requestID: String
    /// The address of the connection's other end (a proxy's, behind one; see ``ClientAddress``).
    public let peerAddress: String?

    public init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        requestID = ObjectID.make(.request, length: 14)
        peerAddress = source.channel.remoteAddress?.ipAddress
        logger[metadataKey: "request_id"] = .string(requestID)
        logger[metadataKey: "hb.request.id"] = nil  // ours replaces Hummingbird's own id
    }
}
