/// A card number as entered, checked (digits, brand by prefix, length for the brand, Luhn).
///
/// It exists only while a request runs: Purse keeps its last four digits and a fingerprint, and
/// its `description` never shows the number.
public struct CardNumber: Sendable, CustomStringConvertible {
    /// The digits. Never stored, logged or put in an error message.
    let digits: String
    public let brand: CardBrand

    public var last4: String { String(digits.suffix(4)) }

    /// Reads a number, allowing spaces and dashes between digit groups; nil when it is not a
    /// valid card number of a known brand.
    public init?(_ text: String) {
        let digits = String(text.filter { $0 != " " && $0 != "-" })
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let brand = CardBrand.detect(digits), brand.lengths.contains(digits.count), Self.passesLuhn(digits)
        else { return nil }
        self.digits = digits
        self.brand = brand
    }

    public var description: String { "CardNumber(\(brand.rawValue), •••• \(last4))" }

    /// From the rightmost digit, double every second digit (minus 9 above 9); the sum ends in 0.
    static func passesLuhn(_ digits: String) -> Bool {
        var sum = 0
        for (index, character) in digits.reversed().enumerated() {
            var digit = Int(character.asciiValue! - UInt8(ascii: "0"))
            if index % 2 == 1 {
                digit *= 2
                if digit > 9 { digit -= 9 }
            }
            sum += digit
        }
        return sum % 10 == 0
    }
}

/// Card brands, as Stripe names them, with their prefixes and number lengths.
public enum CardBrand: String, Sendable, CaseIterable {
    case visa, mastercard, amex, discover, diners, jcb, unionpay

    /// stripe-ios's BIN table: the longest matching prefix wins.
    static let prefixes: [(prefix: String, brand: CardBrand)] = [
        ("34", .amex), ("37", .amex),
        ("30", .diners), ("36", .diners), ("38", .diners), ("39", .diners),
        ("60", .discover), ("64", .discover), ("65", .discover),
        ("35", .jcb),
        ("22", .mastercard), ("23", .mastercard), ("24", .mastercard), ("25", .mastercard), ("26", .mastercard),
        ("27", .mastercard), ("50", .mastercard), ("51", .mastercard), ("52", .mastercard), ("53", .mastercard),
        ("54", .mastercard), ("55", .mastercard), ("56", .mastercard), ("57", .mastercard), ("58", .mastercard),
        ("59", .mastercard), ("67", .mastercard),
        ("62", .unionpay), ("81", .unionpay),
        ("4", .visa),
    ]

    static func detect(_ digits: String) -> CardBrand? {
        prefixes.filter { digits.hasPrefix($0.prefix) }.max { $0.prefix.count < $1.prefix.count }?.brand
    }

    /// Number lengths the brand issues.
    var lengths: Set<Int> {
        switch self {
        case .visa: [13, 16, 19]
        case .amex: [15]
        case .mastercard: [16]
        case .discover: [16, 19]
        case .diners: [14, 16, 19]
        case .jcb, .unionpay: [16, 17, 18, 19]
        }
    }

    /// Length of the security code.
    var cvcLength: Int { self == .amex ? 4 : 3 }

    /// `card.display_brand`.
    var displayBrand: String {
        switch self {
        case .amex: "american_express"
        case .diners: "diners_club"
        case .unionpay: "union_pay"
        default: rawValue
        }
    }
}
