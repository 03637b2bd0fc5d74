/// Rules on free text, checked where parameters become stored values.
public enum TextRules {
    /// Returns `value` when it has at most `maximum` characters, else refuses it naming `param`.
    public static func limited(_ value: String?, to maximum: Int, param: String) throws -> String? {
        guard let value else { return nil }
        // Counting characters walks grapheme clusters; no more bytes than the limit is no more
        // characters either, so most values are never counted.
        guard value.utf8.count <= maximum || value.count <= maximum else {
            throw PurseError.invalidParameter(param, "\(param) must have at most \(maximum) characters.")
        }
        return value
    }

    /// A value of one line, within `maximum` characters: a carriage return or line feed in a name,
    /// phone or description is refused (such values end up in mail headers, logs and CSV exports,
    /// where a line break injects a line of its own).
    public static func singleLine(_ value: String?, to maximum: Int, param: String) throws -> String? {
        guard let value = try limited(value, to: maximum, param: param) else { return nil }
        guard !value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" }) else {
            throw PurseError.invalidParameter(param, "\(param) must be a single line: it contains a line break.")
        }
        return value
    }

    /// An email address as Stripe accepts one: exactly one `@` with text on both sides, no
    /// whitespace, control characters or angle brackets, at most `maximum` characters (512 for a
    /// customer); anything else is `400 email_invalid`.
    public static func email(_ value: String?, maximum: Int = 512, param: String) throws -> String? {
        guard let value else { return nil }
        let parts = value.split(separator: "@", omittingEmptySubsequences: false)
        let forbidden = value.unicodeScalars.contains { scalar in
            // ASCII's whitespace and controls are exactly what lies below "!" and DEL; only other
            // scalars need Unicode's property tables.
            if scalar.isASCII { return scalar.value < 0x21 || scalar.value == 0x7F || scalar == "<" || scalar == ">" }
            return scalar.properties.isWhitespace || scalar.properties.generalCategory == .control
        }
        let withinMaximum = value.utf8.count <= maximum || value.count <= maximum
        guard withinMaximum, parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, !forbidden else {
            throw PurseError.invalidParameter(param, "Invalid email address: \(value)", code: "email_invalid")
        }
        return value
    }
}

/// The checks on `billing_details` fields, wherever billing details are stored: a payment
/// method's (create and update) and the sheet settings' defaults.
public enum BillingFieldRules {
    public static func email(_ value: String?, param: String) throws -> String? {
        try TextRules.email(value, maximum: 800, param: param)
    }

    public static func name(_ value: String?, param: String) throws -> String? {
        try TextRules.singleLine(value, to: 256, param: param)
    }

    public static func phone(_ value: String?, param: String) throws -> String? {
        try TextRules.singleLine(value, to: 50, param: param)
    }
}
