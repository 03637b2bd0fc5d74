/// Length limits on free text, checked where parameters become stored values.
public enum TextRules {
    /// Returns `value` when it has at most `maximum` characters, else refuses it naming `param`.
    public static func limited(_ value: String?, to maximum: Int, param: String) throws -> String? {
        guard let value else { return nil }
        guard value.count <= maximum else {
            throw PurseError.invalidParameter(param, "\(param) must have at most \(maximum) characters.")
        }
        return value
    }
}
