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
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2 else { throw malformed }
        let scheme = parts[0].lowercased()
        let value = String(trimmed(parts[1]))
        switch scheme {
        case "bearer":
            guard !value.isEmpty else { throw Authenticator.missingKey }
            return value
        case "basic":
            guard let decoded = Data(base64Encoded: value), let text = String(data: decoded, encoding: .utf8) else {
                throw malformed
            }
            let user = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)[0]
            guard !user.isEmpty else { throw Authenticator.missingKey }
            return String(user)
        default:
            throw malformed
        }
    }

    /// Without spaces and tabs at either end. (Foundation's `trimmingCharacters(in:)` cost a
    /// few percent of a whole request.)
    private static func trimmed(_ text: some StringProtocol) -> Substring {
        let isBlank = { (character: Character) in character == " " || character == "\t" }
        let text = Substring(text)
        guard let first = text.firstIndex(where: { !isBlank($0) }), let last = text.lastIndex(where: { !isBlank($0) }) else {
            return ""
        }
        return text[first...last]
    }

    private static let malformed = PurseError(
        .authentication,
        message: "Invalid Authorization header. Send your API key as 'Authorization: Bearer YOUR_KEY', or as the "
            + "user name of HTTP Basic authentication."
    )
}
