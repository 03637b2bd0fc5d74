import Foundation
import PurseCore

/// The address a request came from, for limits kept per client: the connection's peer, or, when
/// that peer is a trusted proxy (`--trusted-proxies`), the address it reports in
/// `X-Forwarded-For` — the rightmost one that is not itself a trusted proxy, since a client can
/// put anything at the left of that header. Without trusted proxies the header is ignored, so a
/// client cannot choose the address it is counted under.
struct ClientAddress: Sendable {
    let trustedProxies: [IPRange]

    func of(peer: String?, forwardedFor: String?) -> String? {
        guard let peer, isTrusted(peer), let forwardedFor else { return peer }
        let hops = forwardedFor.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return hops.last { !isTrusted($0) } ?? hops.first ?? peer
    }

    private func isTrusted(_ address: String) -> Bool {
        trustedProxies.contains { $0.contains(address) }
    }
}
