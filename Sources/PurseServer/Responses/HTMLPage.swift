import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PurseCore

/// A page Purse serves to a person's browser (the 3D Secure, microdeposits, test-bank and customer
/// portal pages), with the protections every such page gets: a Content-Security-Policy that allows
/// no framing and no script but the formatting one by hash (on the pages that ask for it), its one
/// style sheet by hash, `X-Frame-Options: DENY`, `nosniff`, no referrer (the URL carries a token)
/// and no caching.
struct HTMLPage {
    let title: String
    /// The page's content, already escaped where it holds data (``escaped(_:)``).
    let body: String
    /// The `lang` of the page's text.
    var language = "en"
    /// Whether the page runs ``script``; every page works without it.
    var formatsInputs = false
    /// Where the page's forms may end up after their POST (a `return_url` the server redirects
    /// to): browsers apply `form-action` to that redirect too, so it must be allowed or the
    /// customer is stranded on the page.
    var formTarget: String?
    /// Where the browser goes on by itself (a meta refresh, which no form-action limits), as
    /// after a saved method sends the customer to another site.
    var refreshTo: String?

    /// The style sheet of every page, allowed by its hash so that no inline style or script is.
    static let styleSheet = """
        body{font-family:system-ui,-apple-system,sans-serif;line-height:1.5;color:#1a1a1a;background:#fff;\
        max-width:28rem;margin:0 auto;padding:2rem 1.25rem}\
        h1{font-size:1.5rem;margin:0 0 1rem}\
        form{margin:0 0 .75rem}\
        button{font:inherit;font-size:1rem;width:100%;min-height:2.75rem;padding:.5rem 1rem;border-radius:.5rem;\
        border:1px solid #3c4257;background:#f6f8fa;color:#1a1a1a;cursor:pointer}\
        button.primary{background:#0a5ad4;border-color:#0a5ad4;color:#fff}\
        button:focus-visible{outline:3px solid #ffbf47;outline-offset:2px}\
        a.button{display:block;box-sizing:border-box;text-align:center;text-decoration:none;min-height:2.75rem;\
        padding:.5rem 1rem;border-radius:.5rem;border:1px solid #0a5ad4}\
        a.button.primary{background:#0a5ad4;color:#fff}\
        a.button:focus-visible{outline:3px solid #ffbf47;outline-offset:2px}\
        fieldset{border:1px solid #d0d7de;border-radius:.5rem;margin:0 0 1rem;padding:.75rem 1rem}\
        legend{font-weight:600;padding:0 .25rem}\
        .choice{display:flex;gap:.5rem;align-items:baseline;margin:.25rem 0}\
        .choice small{display:block;color:#57606a}\
        label{display:block}\
        input:not([type=radio]):not([type=checkbox]),select{font:inherit;width:100%;box-sizing:border-box;min-height:2.5rem;margin:.25rem 0 .75rem;\
        padding:.25rem .5rem;border:1px solid #3c4257;border-radius:.375rem}\
        input:focus-visible,select:focus-visible{outline:3px solid #ffbf47;outline-offset:2px}\
        .error{color:#a40e26;font-weight:600}\
        a{color:#0a5ad4}a:focus-visible{outline:3px solid #ffbf47;outline-offset:2px}\
        header.merchant{color:#3c4257;margin:0 0 1rem}\
        ul.methods{list-style:none;padding:0;margin:0 0 1rem}\
        li.payment-method{border:1px solid #d0d7de;border-radius:.5rem;padding:.75rem 1rem;margin:0 0 .75rem}\
        .method-name{font-weight:600}.method-detail{color:#57606a}\
        .badge{display:inline-block;margin-left:.5rem;padding:0 .5rem;border-radius:1rem;background:#e6f0ff;color:#0a3d91;\
        font-size:.875rem;font-weight:600}\
        .actions{display:flex;gap:.5rem;margin-top:.5rem}.actions form{margin:0;flex:1}\
        .notice{padding:.5rem .75rem;border-radius:.375rem;background:#e7f6ec;color:#0f5323}\
        nav.types{display:flex;gap:.5rem;margin:0 0 1rem}nav.types a{flex:1;text-align:center;padding:.5rem;\
        border:1px solid #3c4257;border-radius:.5rem;color:#1a1a1a;text-decoration:none}\
        nav.types a[aria-current]{background:#0a5ad4;border-color:#0a5ad4;color:#fff}\
        .field-error{color:#a40e26;margin:-.5rem 0 .75rem;font-size:.875rem}\
        .checkbox{display:flex;gap:.5rem;align-items:center;margin:0 0 1rem}.checkbox input{width:1.25rem;height:1.25rem}\
        @media (min-width:48rem){body{max-width:36rem}}
        """

    /// The one script a page may run: it spaces a card number and an expiry date as they are
    /// typed. Allowed by its hash, on the pages that ask for it; the forms work without it.
    static let script = """
        document.querySelectorAll('input[data-format]').forEach(function(input){input.addEventListener('input',function(){\
        var digits=input.value.replace(/\\D/g,'');if(input.dataset.format==='card'){\
        input.value=digits.slice(0,19).replace(/(.{4})(?=.)/g,'$1 ');}else{digits=digits.slice(0,4);\
        input.value=digits.length>2?digits.slice(0,2)+' / '+digits.slice(2):digits;}});});
        """

    static let scriptHash = "sha256-" + Data(SHA256.hash(data: Data(script.utf8))).base64EncodedString()

    static let styleHash = "sha256-" + Data(SHA256.hash(data: Data(styleSheet.utf8))).base64EncodedString()

    func response(status: HTTPResponse.Status = .ok) -> Response {
        let page = """
            <!doctype html><html lang="\(language)"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1"><title>\(Self.escaped(title))</title>\
            \(refreshTo.map { "<meta http-equiv=\"refresh\" content=\"0;url=\(Self.escaped($0))\">" } ?? "")
            <style>\(Self.styleSheet)</style></head>
            <body><main>\(body)</main>\(formatsInputs ? "<script>\(Self.script)</script>" : "")</body></html>
            """
        let formAction = ["'self'", formTarget.flatMap(ReturnURL.formActionSource)].compactMap { $0 }.joined(separator: " ")
        let bytes = Array(page.utf8)
        return Response(
            status: status,
            headers: [
                .contentType: "text/html; charset=utf-8",
                .contentLength: String(bytes.count),
                .cacheControl: "no-store",
                .contentSecurityPolicy:
                    "default-src 'none'; style-src '\(Self.styleHash)'; "
                    + (formatsInputs ? "script-src '\(Self.scriptHash)'; " : "")
                    + "form-action \(formAction); frame-ancestors 'none'; base-uri 'none'",
                .xFrameOptions: "DENY",
                .xContentTypeOptions: "nosniff",
                .referrerPolicy: "no-referrer",
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }

    /// Text safe to place in HTML content and attribute values.
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "'", with: "&#39;")
    }
}

extension HTTPField.Name {
    static let xFrameOptions = HTTPField.Name("X-Frame-Options")!
    static let xContentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
}
