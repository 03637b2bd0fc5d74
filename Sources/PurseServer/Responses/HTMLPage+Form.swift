import Hummingbird
import NIOCore

extension HTMLPage {
    /// The largest form a page sends: a few short fields.
    static let maximumForm = 4096

    /// The fields of a page's form POST; nil when it was larger than ``maximumForm``, and
    /// ``tooLarge(_:)`` is the answer.
    static func formFields(of request: Request) async throws -> ParamObject? {
        var request = request
        do {
            return try FormParser.parse(try await request.collectBody(limit: maximumForm).readableBytesView)
        } catch let error as APIError where error.status == .contentTooLarge {
            return nil
        }
    }

    /// The `413` page for a form too large, telling the person what to do `again`.
    static func tooLarge(again: String) -> Response {
        HTMLPage(title: "Request too large", body: "<h1>This request is too large</h1><p>Go back and \(again) again.</p>")
            .response(status: .contentTooLarge)
    }
}
