public import HTTPTypes
public import PurseCore
public import PurseModels
import Hummingbird

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

    /// The caller of an authenticated route (every route but the public ones).
    public var caller: Credential {
        guard let credential else { preconditionFailure("caller read on a public route") }
        return credential
    }

    /// The parameters as `Params`, refusing any the type does not read unless `ignoring` names
    /// it (parameters the mobile SDK sends that Purse does not act on).
    public func decode<Params: Decodable>(_: Params.Type, ignoring: Set<String> = []) throws -> Params {
        try ParamDecoder(ignoredParameters: ignoring).decode(Params.self, from: parameters)
    }

    /// A path parameter such as the `{id}` of `/v1/customers/{id}`.
    public func pathParameter(_ name: String) -> String {
        pathParameters.get(name) ?? ""
    }
}

/// What a handler answers: a status and a JSON body (before `expand` is applied).
public struct APIResult: Sendable {
    public var status: HTTPResponse.Status
    public var body: JSONValue

    public init(status: HTTPResponse.Status = .ok, body: JSONValue) {
        self.status = status
        self.body = body
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
}
