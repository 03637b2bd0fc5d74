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
        while characters.count < length {
            // Divide the big-endian number by 62, keeping the remainder as the next character.
            var remainder = 0
            for index in digits.indices {
                let value = remainder * 256 + Int(digits[index])
                digits[index] = UInt8(value / 62)
                remainder = value % 62
            }
            characters.append(ObjectID.alphabet[remainder])
        }
        return String(decoding: characters, as: UTF8.self)
    }
}
