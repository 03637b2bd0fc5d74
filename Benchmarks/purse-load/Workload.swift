import Foundation

/// What one operation does, read from a JSON file: a sequence of requests whose paths, bodies
/// and headers are templates filled from the operation's row, from values captured out of
/// earlier responses, and from `{n}`, a number unique to the operation.
///
/// ```json
/// {"name": "confirm",
///  "steps": [
///    {"method": "POST", "path": "/v1/setup_intents", "headers": {"Authorization": "Bearer {sk}"},
///     "body": "customer={customer}", "capture": {"seti": "id", "secret": "client_secret"}},
///    {"method": "POST", "path": "/v1/setup_intents/{seti}/confirm", ...}],
///  "rows": [{"sk": "sk_...", "customer": "cus_..."}]}
/// ```
/// Connection `i` of `c` takes rows `i`, `i + c`, `i + 2c`, ... and starts again at the end.
struct Workload: Decodable, Sendable {
    struct Step: Decodable, Sendable {
        var method: String
        var path: String
        var headers: [String: String]?
        var body: String?
        /// Variable name to a top-level field of the JSON response.
        var capture: [String: String]?
    }

    var name: String
    var steps: [Step]
    var rows: [[String: String]]

    static func load(_ path: String) throws -> Workload {
        let workload = try JSONDecoder().decode(Workload.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        guard !workload.steps.isEmpty else { throw LoadError("\(path): a workload needs at least one step") }
        guard !workload.rows.isEmpty else { throw LoadError("\(path): a workload needs at least one row") }
        return workload
    }
}

/// A workload with its templates split, ready to drive connections.
struct CompiledWorkload: Sendable {
    struct Step: Sendable {
        let method: String
        let path: Template
        let headers: [(name: String, value: Template)]
        let body: Template?
        let capture: [(variable: String, field: String)]
    }

    let name: String
    let steps: [Step]
    let rows: [[String: String]]

    init(_ workload: Workload) {
        name = workload.name
        rows = workload.rows
        steps = workload.steps.map { step in
            Step(
                method: step.method.uppercased(),
                path: Template(step.path),
                headers: (step.headers ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, Template($0.value)) },
                body: step.body.map(Template.init),
                capture: (step.capture ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
            )
        }
    }
}
