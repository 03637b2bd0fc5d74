import Crypto
import Foundation

/// `Stripe-Signature: t=<time>,v1=<hex>`: HMAC-SHA256 keyed by the whole `whsec_...` secret as
/// UTF-8, over `"<time>.<body>"`, which is what stripe-python's and stripe-node's verifiers check.
public enum WebhookSignature {
    public static func header(secret: String, timestamp: Int, body: [UInt8]) -> String {
        let key = SymmetricKey(data: Array(secret.utf8))
        let message = Array("\(timestamp).".utf8) + body
        let mac = HMAC<SHA256>.authenticationCode(for: message, using: key)
        return "t=\(timestamp),v1=" + mac.map { String(format: "%02x", $0) }.joined()
    }
}
