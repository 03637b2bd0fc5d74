import Foundation
public import Logging

/// Writes one logfmt line per log call to standard error:
/// `time=... level=info msg="request" request_id=req_... status=200`.
///
/// Lines are structured (key=value, values quoted when needed) yet readable, and written with one
/// `write` each so lines from different threads never interleave.
public struct LogfmtLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    private let label: String

    public init(label: String, level: Logger.Level) {
        self.label = label
        self.logLevel = level
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var line = "time=\(Self.timestamp()) level=\(event.level) msg=\(Self.quoted(event.message.description))"
        line += " logger=\(label)"
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        for key in merged.keys.sorted() {
            line += " \(key)=\(Self.quoted(Self.render(merged[key]!)))"
        }
        line += "\n"
        let bytes = Array(line.utf8)
        // One write(2) per line: the kernel keeps it whole.
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(STDERR_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
                if written <= 0 { break }
                offset += written
            }
        }
    }

    private static func render(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let text): return text
        case .stringConvertible(let value): return value.description
        case .array(let values): return "[" + values.map(render).joined(separator: ",") + "]"
        case .dictionary(let values):
            return "{" + values.keys.sorted().map { "\($0):\(render(values[$0]!))" }.joined(separator: ",") + "}"
        }
    }

    /// Quotes a value that is empty or holds spaces, quotes, `=` or control characters.
    static func quoted(_ text: String) -> String {
        let needsQuotes =
            text.isEmpty
            || text.unicodeScalars.contains {
                $0 == " " || $0 == "\"" || $0 == "=" || $0 == "\\" || $0.value < 0x20
            }
        guard needsQuotes else { return text }
        var escaped = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\t": escaped += "\\t"
            case let control where control.value < 0x20: escaped += "\\u{\(String(control.value, radix: 16))}"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped + "\""
    }

    private static func timestamp() -> String {
        Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
