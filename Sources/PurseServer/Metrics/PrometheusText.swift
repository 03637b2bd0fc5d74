/// Prometheus' text exposition format, version 0.0.4: a `# HELP` and a `# TYPE` line per
/// family, then its samples, one per line.
struct PrometheusText {
    /// The `Content-Type` of the format.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    enum Kind: String, Sendable {
        case counter, gauge, histogram
    }

    private(set) var output = ""

    init() {
        output.reserveCapacity(16_384)
    }

    /// Starts a family. Every sample written until the next family must belong to it.
    mutating func family(_ name: String, _ kind: Kind, help: String) {
        output += "# HELP \(name) \(Self.escapedHelp(help))\n# TYPE \(name) \(kind.rawValue)\n"
    }

    /// One sample; `labels` is as made by ``labels(_:)``, or empty.
    mutating func sample(_ name: String, labels: String = "", _ value: Double) {
        output += name
        output += labels
        output += " "
        output += Self.format(value)
        output += "\n"
    }

    mutating func sample(_ name: String, labels: String = "", _ value: Int) {
        output += name
        output += labels
        output += " "
        output += String(value)
        output += "\n"
    }

    /// `{name="value",...}`, values escaped; empty for no labels. Label names must already be
    /// valid (`[a-zA-Z_][a-zA-Z0-9_]*`; see ``sanitizedName(_:allowColon:)``).
    static func labels(_ pairs: [(String, String)]) -> String {
        guard !pairs.isEmpty else { return "" }
        var text = "{"
        for (index, (name, value)) in pairs.enumerated() {
            if index > 0 { text += "," }
            text += name
            text += "=\""
            text += escapedLabelValue(value)
            text += "\""
        }
        return text + "}"
    }

    /// A sample value or bucket bound: integers without a fraction, `+Inf`, `-Inf`, `NaN`.
    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 9.0e15 { return String(Int64(value)) }
        return String(value)
    }

    /// A metric name (or, without colons, a label name) reduced to the characters Prometheus
    /// allows.
    static func sanitizedName(_ name: String, allowColon: Bool = true) -> String {
        var result = ""
        for (index, scalar) in name.unicodeScalars.enumerated() {
            let allowed =
                scalar == "_" || (allowColon && scalar == ":")
                || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
                || (index > 0 && ("0"..."9").contains(scalar))
            result.unicodeScalars.append(allowed ? scalar : "_")
        }
        return result.isEmpty ? "_" : result
    }

    private static func escapedLabelValue(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\n") })
        else { return value }
        var escaped = ""
        for character in value {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    private static func escapedHelp(_ help: String) -> String {
        help.replacing("\\", with: "\\\\").replacing("\n", with: "\\n")
    }
}
