import Hummingbird
import NIOCore
import NIOHTTP1

extension Request {
    /// The body, at most `limit` bytes. A declared `Content-Length` over the limit is refused
    /// before anything is read, and a body that turns out longer once it arrives is refused too:
    /// both are 413, and the connection closes after the answer, since the rest of the body is
    /// never read. A body that stalls is 408 (``RequestReadTimeoutHandler``); one the client cuts
    /// short by closing its connection is ``APIError/clientClosedRequest``, not a server error.
    mutating func collectBody(limit: Int) async throws -> ByteBuffer {
        if let declared = headers[.contentLength], let length = Int(declared), length > limit {
            throw APIError.bodyTooLarge(limit: limit)
        }
        do {
            return try await collectBody(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw APIError.bodyTooLarge(limit: limit)
        } catch let timeout as RequestBodyTimeout {
            throw APIError.requestTimeout(seconds: timeout.seconds)
        } catch let error as HTTPParserError where error == .invalidEOFState || error == .closedConnection {
            throw APIError.clientClosedRequest
        }
    }
}
