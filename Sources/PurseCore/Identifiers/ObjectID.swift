/// Object ids and other random tokens: a prefix, `_`, then random base62 characters drawn from
/// the system's cryptographic generator (getrandom on Linux).
public enum ObjectID {
    /// The prefixes of Purse's objects, as Stripe spells them.
    public enum Prefix: String, Sendable, CaseIterable {
        case account = "acct"
        case customer = "cus"
        case paymentMethod = "pm"
        case setupIntent = "seti"
        case ephemeralKey = "ephkey"
        case customerSession = "cuss"
        case event = "evt"
        case webhookEndpoint = "we"
        case sheetSettings = "css"
        case request = "req"
        case apiKey = "key"
        case setupAttempt = "setatt"
        case mandate = "mandate"
        case delivery = "whdel"
        case financialConnectionsSession = "fcsess"
        case financialConnectionsAccount = "fca"
        case billingPortalConfiguration = "bpc"
        case billingPortalSession = "bps"
        case testClock = "clock"
    }

    static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

    /// A new id such as `cus_4fG...` (24 random characters, about 143 bits).
    public static func make(_ prefix: Prefix, length: Int = 24) -> String {
        prefix.rawValue + "_" + randomBase62(length: length)
    }

    /// Random base62 text, unbiased (rejection sampling over random bytes). The bytes come in one
    /// system call, with a third to spare for the rejected ones: a call per eight bytes made ids
    /// a visible part of creating an object (a customer and its event took a dozen).
    public static func randomBase62(length: Int) -> String {
        var characters: [UInt8] = []
        characters.reserveCapacity(length)
        while characters.count < length {
            let needed = length - characters.count
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: needed + needed / 3 + 4) { bytes in
                SystemRandom.fill(UnsafeMutableRawBufferPointer(bytes))
                // 62 * 4 = 248: bytes at or above it would favour the first characters, so skip them.
                for byte in bytes where byte < 248 && characters.count < length {
                    characters.append(alphabet[Int(byte % 62)])
                }
            }
        }
        return String(decoding: characters, as: UTF8.self)
    }

    /// Whether `text` is `prefix_` followed by base62 characters only, so it can be used as an id.
    public static func isWellFormed(_ text: String, prefix: Prefix) -> Bool {
        let expected = prefix.rawValue + "_"
        guard text.hasPrefix(expected), text.utf8.count > expected.utf8.count, text.utf8.count <= 255 else {
            return false
        }
        return text.utf8.dropFirst(expected.utf8.count).allSatisfy { alphabet.contains($0) }
    }
}
