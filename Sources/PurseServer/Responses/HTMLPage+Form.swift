import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PurseParameters

extension HTMLPage {
    /// The largest form a page sends: a few short fields.
    static let maximumForm = 4096

    /// The fields of a page's form POST; nil when it was larger than ``maximumForm``, and
    /// ``tooLarge(_:)`` is the answer. A body that is not a form (names that do not parse) has no
    /// fields: the page then refuses it as it refuses a form missing what it needs, with a page
    /// rather than an API's JSON error.
    static func formFields(of request: Request) async throws -> ParamObject? {
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(limit: maximumForm)
        } catch let error as APIError where error.status == .contentTooLarge {
            return nil
        }
        return (try? FormParser.parse(body.readableBytesView)) ?? ParamObject()
    }

    /// The `413` page for a form too large, telling the person what to do `again`.
    static func tooLarge(again: String) -> Response {
        HTMLPage(title: "Request too large", body: "<h1>This request is too large</h1><p>Go back and \(again) again.</p>")
            .response(status: .contentTooLarge)
    }

    /// Whether the browser says a form's POST comes from Purse's own pages: `Sec-Fetch-Site`,
    /// which every current browser sends, is `same-origin` (or `none`, typed by the person).
    /// Without it, an `Origin` must be Purse's own (`publicURL`'s, or the request's host), unless
    /// it is `null`: the pages' `no-referrer` policy makes browsers send that for their own forms.
    /// A page from another site therefore cannot make a customer's browser act on these pages.
    static func isFromOwnSite(_ request: Request, publicURL: String) -> Bool {
        if let site = request.headers[.secFetchSite] { return site == "same-origin" || site == "none" }
        guard let origin = request.headers[.origin]?.lowercased(), origin != "null" else { return true }
        var allowed: [String] = []
        if let components = URLComponents(string: publicURL), let scheme = components.scheme, let host = components.host {
            allowed.append("\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? ""))
        }
        if let host = request.head.authority { allowed += ["http://\(host)", "https://\(host)"] }
        return allowed.contains(origin)
    }

    /// The `403` page for a form another site sent.
    static func fromAnotherSite() -> Response {
        HTMLPage(title: "This form cannot be sent", body: "<h1>This form cannot be sent</h1><p>Reload the page and try again.</p>")
            .response(status: .forbidden)
    }
}

extension HTTPField.Name {
    static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!
}
