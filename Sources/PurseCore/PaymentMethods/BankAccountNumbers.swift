/// A US bank account as entered: ABA routing number (checksum) and account number (4 to 17
/// digits). Never stored; Purse keeps the routing number, the last four and a fingerprint.
public struct USBankAccountNumber: Sendable, CustomStringConvertible {
    public let routingNumber: String
    /// Never stored, logged or put in an error message.
    let accountNumber: String

    public var last4: String { String(accountNumber.suffix(4)) }

    public enum Problem: Error, Sendable { case routingNumber, accountNumber }

    public init(routingNumber: String, accountNumber: String) throws(Problem) {
        guard routingNumber.count == 9, routingNumber.allSatisfy(\.isASCIIDigit), Self.passesABAChecksum(routingNumber) else {
            throw .routingNumber
        }
        guard (4...17).contains(accountNumber.count), accountNumber.allSatisfy(\.isASCIIDigit) else {
            throw .accountNumber
        }
        self.routingNumber = routingNumber
        self.accountNumber = accountNumber
    }

    public var description: String { "USBankAccountNumber(\(routingNumber), ••••\(last4))" }

    /// 3·(d1+d4+d7) + 7·(d2+d5+d8) + (d3+d6+d9) is a multiple of 10.
    static func passesABAChecksum(_ routing: String) -> Bool {
        let digits = routing.map { Int($0.asciiValue! - UInt8(ascii: "0")) }
        let weights = [3, 7, 1, 3, 7, 1, 3, 7, 1]
        return zip(digits, weights).map(*).reduce(0, +) % 10 == 0
    }
}

/// An IBAN as entered: country, length for the country, mod-97 check. Never stored; Purse keeps
/// the country, bank and branch codes, the last four and a fingerprint.
public struct IBAN: Sendable, CustomStringConvertible {
    /// Upper case, without spaces. Never stored, logged or put in an error message.
    let normalized: String

    public var country: String { String(normalized.prefix(2)) }
    public var last4: String { String(normalized.suffix(4)) }

    public init?(_ text: String) {
        let normalized = text.filter { $0 != " " }.uppercased()
        guard normalized.count >= 15, normalized.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }),
            let expected = Self.lengths[String(normalized.prefix(2))], normalized.count == expected,
            normalized.dropFirst(2).prefix(2).allSatisfy(\.isASCIIDigit), Self.passesMod97(normalized)
        else { return nil }
        self.normalized = normalized
    }

    public var description: String { "IBAN(\(country), ••••\(last4))" }

    /// The bank and branch codes inside the BBAN, for the countries whose layout is known.
    public var bankAndBranch: (bank: String?, branch: String?) {
        let bban = Array(normalized.dropFirst(4))
        func part(_ start: Int, _ length: Int) -> String? {
            guard length > 0, start + length <= bban.count else { return nil }
            return String(bban[start..<(start + length)])
        }
        switch country {
        case "DE": return (part(0, 8), nil)
        case "AT": return (part(0, 5), nil)
        case "FR", "MC": return (part(0, 5), part(5, 5))
        case "IT", "SM": return (part(1, 5), part(6, 5))
        case "ES": return (part(0, 4), part(4, 4))
        case "NL": return (part(0, 4), nil)
        case "BE": return (part(0, 3), nil)
        case "IE", "GB": return (part(0, 4), part(4, 6))
        case "PT": return (part(0, 4), part(4, 4))
        case "CH", "LI": return (part(0, 5), nil)
        default: return (nil, nil)
        }
    }

    /// Move the first four characters to the end, letters to numbers (A = 10), remainder mod 97 is 1.
    static func passesMod97(_ iban: String) -> Bool {
        var remainder = 0
        for character in iban.dropFirst(4) + iban.prefix(4) {
            let value: Int
            if let digit = character.wholeNumberValue {
                value = digit
            } else {
                value = Int(character.asciiValue! - UInt8(ascii: "A")) + 10
            }
            remainder = (value < 10 ? remainder * 10 + value : remainder * 100 + value) % 97
        }
        return remainder == 1
    }

    /// IBAN lengths of the SEPA countries (and a few more).
    static let lengths: [String: Int] = [
        "AD": 24, "AT": 20, "BE": 16, "BG": 22, "CH": 21, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "EE": 20,
        "ES": 24, "FI": 18, "FR": 27, "GB": 22, "GI": 23, "GR": 27, "HR": 21, "HU": 28, "IE": 22, "IS": 26,
        "IT": 27, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "MC": 27, "MT": 31, "NL": 18, "NO": 15, "PL": 28,
        "PT": 25, "RO": 24, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "VA": 22,
    ]
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
