public import HTTPTypes
import Hummingbird
import Logging
public import PurseCore
public import PurseModels
import PurseParameters

/// Everything a route handler gets: the caller, the decoded parameters and what events record.
public struct APIRequest: Sendable {
    public let method: HTTPRequest.Method
    /// The path without its query string, as list objects' `url` shows it.
    public let path: String
    public let headers: HTTPFields
    /// The credential, checked against the route's ``Access``; nil only on public routes.
    public let credential: Credential?
    public let info: RequestInfo
    let parameters: ParamObject
    let pathParameters: Parameters
    /// What the parameters may carry beyond what the handler reads (spec §3).
    let parameterPolicy: ParameterPolicy
    let ignoredParameters: IgnoredParameters
    let logger: Logger
    /// `expand[]=total_count` on a search.
    let expandsTotalCount: Bool

    /// The caller of an authenticated route (every route but the public ones).
    public var caller: Credential {
        guard let credential else { preconditionFailure("caller read on a public route") }
        return credential
    }

    /// The parameters as `Params`, refusing any the type does not read unless the request's
    /// ``ParameterPolicy`` ignores it (what Stripe's client SDKs send that Purse does not act on).
    public func decode<Params: Decodable>(_: Params.Type) throws -> Params {
        let decoded = try ParamDecoder(policy: parameterPolicy).decodeReportingIgnored(Params.self, from: parameters)
        if !decoded.ignored.isEmpty { ignoredParameters.record(decoded.ignored, logger: logger) }
        return decoded.params
    }

    /// A path parameter such as the `{id}` of `/v1/customers/{id}`.
    public func pathParameter(_ name: String) -> String {
        pathParameters.get(name) ?? ""
    }
}

/// What a handler answers: a status and a JSON body (before `expand` is applied).
public struct APIResult: Sendable {
    /// A body as a value, or already written as bytes (lists rendered straight from rows).
    public enum Body: Sendable {
        case value(JSONValue)
        case rendered([UInt8])
    }

    public var status: HTTPResponse.Status
    public var body: Body
    /// Headers of the handler's own, beside the ones every response gets. Only GET routes set
    /// any: an idempotent replay of a POST repeats its status and body only.
    public var headers: HTTPFields = [:]

    public init(status: HTTPResponse.Status = .ok, body: JSONValue) {
        self.status = status
        self.body = .value(body)
    }

    init(status: HTTPResponse.Status = .ok, rendered: [UInt8]) {
        self.status = status
        self.body = .rendered(rendered)
    }

    /// The body as a value, for `expand` to change (a rendered one is read back).
    func value() throws -> JSONValue {
        switch body {
        case .value(let value): value
        case .rendered(let bytes): try JSONReader.parse(bytes)
        }
    }

    /// A model, encoded as Stripe shows it.
    public static func object(_ model: some Encodable, status: HTTPResponse.Status = .ok) throws -> APIResult {
        APIResult(status: status, body: try JSONValueEncoder().encode(model))
    }

    /// A page as Stripe's list object, whose `url` is the bare path.
    public static func list<Element: Encodable & Sendable>(_ page: Page<Element>, url: String) throws -> APIResult {
        let encoder = JSONValueEncoder()
        return APIResult(
            body: [
                "object": "list",
                "data": .array(try page.data.map { try encoder.encode($0) }),
                "has_more": .bool(page.hasMore),
                "url": .string(url),
            ]
        )
    }

    /// A search's answer as Stripe's `search_result` object, whose `url` is the bare path.
    public static func searchResult<Element: Encodable & Sendable>(
        _ result: SearchResult<Element>, url: String
    ) throws
        -> APIResult
    {
        let encoder = JSONValueEncoder()
        var body: JSONValue = [
            "object": "search_result",
            "data": .array(try result.data.map { try encoder.encode($0) }),
            "has_more": .bool(result.hasMore),
            "next_page": result.nextPage.map(JSONValue.string) ?? .null,
            "url": .string(url),
        ]
        if let total = result.totalCount { body["total_count"] = .int(total) }
        return APIResult(body: body)
    }

    /// A page of objects already rendered, as the same list object, written without a value tree.
    public static func list(_ page: Page<RenderedJSON>, url: String) -> APIResult {
        var output: [UInt8] = []
        output.reserveCapacity(64 + page.data.reduce(0) { $0 + $1.bytes.count + 1 })
        output.append(contentsOf: #"{"object":"list","data":["#.utf8)
        for (index, element) in page.data.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            output.append(contentsOf: element.bytes)
        }
        output.append(contentsOf: #"],"has_more":"#.utf8)
        output.append(contentsOf: (page.hasMore ? "true" : "false").utf8)
        output.append(contentsOf: #","url":"#.utf8)
        JSONWriter.writeString(url, to: &output)
        output.append(UInt8(ascii: "}"))
        return APIResult(rendered: output)
    }
}
