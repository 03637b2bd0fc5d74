import Hummingbird
import NIOCore

/// `GET /openapi.json`: the OpenAPI 3.1 document of the API, compiled into the binary.
enum OpenAPIController {
    static let document = Array(OpenAPIDocument.json.utf8)

    static func register(on api: APIRouter) {
        api.raw(.get, "/openapi.json") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "application/json", .contentLength: String(document.count)],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: document))
            )
        }
    }
}
