/// Where a search's next page starts: after the last result of the page before, in the search's
/// order (newest first). Its token (`next_page`, `page`) carries the query's fingerprint, so a
/// token cannot continue another search.
public struct SearchPosition: Sendable, Equatable {
    public var created: Int
    /// Orders results created in the same second.
    public var sequence: Int

    public init(created: Int, sequence: Int) {
        self.created = created
        self.sequence = sequence
    }

    /// `next_page` for the search `query`.
    public func token(for query: String) -> String {
        "page_" + [created, sequence].map { String($0, radix: 36) }.joined(separator: "_") + "_"
            + String(Self.fingerprint(query), radix: 36)
    }

    /// The position `page` names, checked against the search it is sent with.
    public init(token: String, query: String) throws {
        let parts = token.split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "page", let created = Int(parts[1], radix: 36),
            let sequence = Int(parts[2], radix: 36), let fingerprint = UInt64(parts[3], radix: 36)
        else {
            throw PurseError.invalidParameter("page", "Invalid page: '\(token)' is not a next_page this API returned.")
        }
        guard fingerprint == Self.fingerprint(query) else {
            throw PurseError.invalidParameter(
                "page", "This page belongs to another search: send it with the query that returned it."
            )
        }
        self.init(created: created, sequence: sequence)
    }

    /// FNV-1a over the query's UTF-8: telling searches apart, not a secret.
    private static func fingerprint(_ query: String) -> UInt64 {
        query.utf8.reduce(0xcbf2_9ce4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }
}
