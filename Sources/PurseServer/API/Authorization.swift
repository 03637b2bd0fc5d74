import Foundation
import HTTPTypes
import PurseCore

/// Reads the API key from `Authorization`: `Bearer <key>`, or HTTP Basic with the key as the user
/// name and an empty password (as curl's `-u sk_test_...:` sends it).
enum AuthorizationHeader {
    static func key(from fields: HTTPFields) throws -> String {
        guard let header = fields[.authorization].map(trimmed), !header.isEmpty else {
            throw Authenticator.missingKey
        }
        // Bytes, not Characters: grapheme breaking made this a visible part of a whole request.
        guard let space = header.utf8.firstIndex(of: UInt8(ascii: " ")) else { throw malformed }
        let scheme = header[..<space]
        let value = String(trimmed(header[header.utf8.index(after: space)...]))
        if isScheme(scheme, "bearer") {
            guard !value.isEmpty else { throw Authenticator.missingKey }
            return value
        }
        guard isScheme(scheme, "basic") else { throw malformed }
        guard let decoded = Data(base64Encoded: value), let text = String(data: decoded, encoding: .utf8) else {
            throw malformed
        }
        let user = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)[0]
        guard !user.isEmpty else { throw Authenticator.missingKey }
        return String(user)
    }

    /// Whether `scheme` is `name` (lowercase ASCII letters), in any case.
    private static func isScheme(_ scheme: Substring, _ name: String) -> Bool {
        // A letter with bit 0x20 set is its lowercase form.
        scheme.utf8.count == name.utf8.count && zip(scheme.utf8, name.utf8).allSatisfy { $0 | 0x20 == $1 }
    }

    /// Without spaces and tabs at either end. (Foundation's `trimmingCharacters(in:)` cost a
    /// few percent of a whole request.)
    private static func trimmed(_ text: some StringProtocol) -> Substring {
        let text = Substring(text)
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = text.utf8.firstIndex(where: { !isBlank($0) }),
            let last = text.utf8.lastIndex(where: { !isBlank($0) })
        else {
            return ""
        }
        return text[first..<text.utf8.index(after: last)]
    }

    private static let malformed = PurseError(
        .authentication,
        message: "Invalid Authorization header. Send your API key as 'Authorization: Bearer YOUR_KEY', or as the "
            + "user name of HTTP Basic authentication."
    )
}
