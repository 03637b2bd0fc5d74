import Foundation

/// `return_url`: where the customer's browser goes after authenticating. http, https, or an app's
/// own scheme, as the mobile SDKs send (`myapp://stripe-redirect`,
/// `stripesdk://payment_return_url/com.example.app`).
///
/// Schemes that run code or reach local data in a browser (`javascript:`, `data:`, `vbscript:`,
/// `file:`, `blob:`, `about:`, `filesystem:`) and malformed URLs are refused with `400
/// invalid_request_error`, code `url_invalid`, `param: return_url`: Stripe does not document its
/// code for this case, and `url_invalid` is the one it uses for invalid URLs elsewhere.
public enum ReturnURL {
    static let refusedSchemes: Set<String> = ["javascript", "data", "vbscript", "file", "blob", "about", "filesystem"]
    static let maximumLength = 2048

    /// The URL when a customer may be sent there, else the error naming `param`.
    public static func checked(_ text: String?, param: String = "return_url") throws -> String? {
        guard let text else { return nil }
        guard let scheme = scheme(of: text), text.count <= maximumLength,
            !text.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control })
        else { throw invalid(param) }
        guard !refusedSchemes.contains(scheme) else {
            throw PurseError.invalidParameter(
                param, "\(param) may not use the \(scheme): scheme; use https or your app's own scheme.", code: "url_invalid"
            )
        }
        if scheme == "http" || scheme == "https" {
            guard let components = URLComponents(string: text), let host = components.host, !host.isEmpty else { throw invalid(param) }
        } else {
            guard text.count > scheme.count + 1 else { throw invalid(param) }
        }
        return text
    }

    /// The Content-Security-Policy source that lets a page's form send the customer to `url`
    /// after its POST (browsers apply `form-action` to that redirect too): the origin of an
    /// http(s) URL, the scheme of an app's URL.
    public static func formActionSource(_ url: String) -> String? {
        guard let scheme = scheme(of: url) else { return nil }
        guard scheme == "http" || scheme == "https" else { return "\(scheme):" }
        guard let components = URLComponents(string: url), let host = components.host else { return nil }
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme)://\(bracketed)" + (components.port.map { ":\($0)" } ?? "")
    }

    /// The lowercased scheme (RFC 3986: a letter, then letters, digits, `+`, `-` or `.`).
    private static func scheme(of text: String) -> String? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let scheme = text[..<colon]
        guard let first = scheme.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic,
            scheme.unicodeScalars.allSatisfy({
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0))
            })
        else { return nil }
        return scheme.lowercased()
    }

    private static func invalid(_ param: String) -> PurseError {
        PurseError.invalidParameter(
            param, "\(param) must be an absolute URL: https://... or your app's own scheme (myapp://...).", code: "url_invalid"
        )
    }
}
