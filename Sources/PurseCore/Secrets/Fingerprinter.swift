import Crypto

/// Card and account fingerprints: HMAC-SHA256 of the number under the account's fingerprint key,
/// which is derived from the master key and never stored, so a database dump alone cannot be
/// used to test guesses. The same number gives the same fingerprint within an account only.
public struct Fingerprinter: Sendable {
    private let masterKey: MasterKey

    public init(masterKey: MasterKey) { self.masterKey = masterKey }

    public func fingerprint(of card: CardNumber, account: String) -> String {
        fingerprint("card:" + card.digits, account: account)
    }

    public func fingerprint(of bankAccount: USBankAccountNumber, account: String) -> String {
        fingerprint("us_bank_account:\(bankAccount.routingNumber):\(bankAccount.accountNumber)", account: account)
    }

    public func fingerprint(of iban: IBAN, account: String) -> String {
        fingerprint("sepa_debit:" + iban.normalized, account: account)
    }

    private func fingerprint(_ material: String, account: String) -> String {
        let key = masterKey.derivedKey(for: "fingerprint", scope: account)
        let mac = HMAC<SHA256>.authenticationCode(for: Array(material.utf8), using: key)
        return Base62.encode(Array(mac).prefix(12), length: 16)
    }
}

/// Bytes written in base62, as the ids and derived secrets are.
enum Base62 {
    /// `length` base62 characters from the bytes, which must carry enough bits (about 5.95 per
    /// character) for every character to depend on them.
    static func encode(_ bytes: some Collection<UInt8>, length: Int) -> String {
        precondition(Double(bytes.count * 8) >= Double(length) * 5.954, "too few bytes for \(length) base62 characters")
        var digits = Array(bytes)
        var characters: [UInt8] = []
        characters.reserveCapacity(length)
        while characters.count < length {
            // Divide the big-endian number by 62^9 (the largest power for which remainder * 256
            // still fits in 64 bits), then write the remainder as the next nine characters, least
            // significant first: the same characters as dividing by 62 nine times.
            var remainder: UInt64 = 0
            for index in digits.indices {
                let value = remainder << 8 | UInt64(digits[index])
                digits[index] = UInt8(truncatingIfNeeded: value / chunk)
                remainder = value % chunk
            }
            for _ in 0..<min(charactersPerChunk, length - characters.count) {
                characters.append(ObjectID.alphabet[Int(remainder % 62)])
                remainder /= 62
            }
        }
        return String(decoding: characters, as: UTF8.self)
    }

    private static let charactersPerChunk = 9
    /// 62^9, a literal so the division compiles to a multiplication.
    private static let chunk: UInt64 = 13_537_086_546_263_552
}
