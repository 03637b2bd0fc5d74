/// A request part with `{name}` placeholders, split once so that filling it in under load is
/// only appends.
struct Template: Sendable {
    private enum Segment: Sendable {
        case text(String)
        case variable(String)
    }

    private let segments: [Segment]

    init(_ source: String) {
        var segments: [Segment] = []
        var rest = Substring(source)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            if open > rest.startIndex { segments.append(.text(String(rest[..<open]))) }
            segments.append(.variable(String(rest[rest.index(after: open)..<close])))
            rest = rest[rest.index(after: close)...]
        }
        if !rest.isEmpty { segments.append(.text(String(rest))) }
        self.segments = segments
    }

    /// The names this template needs.
    var variables: [String] {
        segments.compactMap { if case .variable(let name) = $0 { name } else { nil } }
    }

    func render(_ value: (String) -> String?) throws(LoadError) -> String {
        var result = ""
        for segment in segments {
            switch segment {
            case .text(let text): result += text
            case .variable(let name):
                guard let filled = value(name) else { throw LoadError("No value for {\(name)}") }
                result += filled
            }
        }
        return result
    }
}
