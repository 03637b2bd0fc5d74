import Hummingbird
import NIOCore
import PurseModels

/// Responses with a JSON body, as every API response is.
extension Response {
    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        json(bytes: JSONWriter.bytes(value), status: status, headers: headers)
    }

    static func json(bytes: [UInt8], status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = "application/json"
        fields[.contentLength] = String(bytes.count)
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func error(_ error: APIError) -> Response {
        json(error.body, status: error.status, headers: error.headers)
    }
}
