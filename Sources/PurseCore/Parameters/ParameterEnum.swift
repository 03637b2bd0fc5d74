/// A string enum parameter whose invalid values are refused with the accepted ones listed.
public protocol ParameterEnum: RawRepresentable<String>, CaseIterable, Decodable, Sendable {}

extension ParameterEnum {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let value = Self(rawValue: text) else {
            let param = ParameterPath.bracketed(decoder.codingPath)
            let accepted = Self.allCases.map { "`\($0.rawValue)`" }.joined(separator: ", ")
            throw PurseError.invalidParameter(
                param, "Invalid \(param): must be one of \(accepted)", code: "parameter_invalid"
            )
        }
        self = value
    }
}

/// Parameter names in Stripe's bracket form: `["address", "line1"]` → `address[line1]`.
public enum ParameterPath {
    public static func bracketed(_ path: [any CodingKey]) -> String {
        bracketed(path.map(\.stringValue))
    }

    /// `card[number]` under `payment_method_data` → `payment_method_data[card][number]`.
    public static func nested(_ path: String, under prefix: String?) -> String {
        guard let prefix else { return path }
        let first = path.prefix { $0 != "[" }
        return "\(prefix)[\(first)]\(path.dropFirst(first.count))"
    }

    public static func bracketed(_ segments: [String]) -> String {
        guard let first = segments.first else { return "" }
        return segments.dropFirst().reduce(first) { $0 + "[\($1)]" }
    }
}
