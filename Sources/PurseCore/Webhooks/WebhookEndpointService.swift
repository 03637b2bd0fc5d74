import Foundation
public import PurseModels

/// `/v1/webhook_endpoints` (secret key): where events go.
public struct WebhookEndpointService: Sendable {
    private let database: any Database
    private let secrets: DerivedSecrets
    /// Which endpoint URLs are accepted.
    private let destinations: WebhookDestinations

    /// The event types Purse records; `*` means all of them.
    public static let eventTypes: Set<String> = [
        "billing_portal.configuration.created", "billing_portal.configuration.updated", "billing_portal.session.created",
        "customer.created", "customer.updated", "customer.deleted",
        "payment_method.attached", "payment_method.detached", "payment_method.updated", "payment_method.automatically_updated",
        "setup_intent.created", "setup_intent.requires_action", "setup_intent.succeeded", "setup_intent.setup_failed",
        "setup_intent.canceled",
        "test_helpers.test_clock.created", "test_helpers.test_clock.advancing", "test_helpers.test_clock.ready",
        "test_helpers.test_clock.deleted", "test_helpers.test_clock.internal_failure",
    ]

    public init(database: any Database, masterKey: MasterKey, destinations: WebhookDestinations) {
        self.database = database
        self.secrets = DerivedSecrets(masterKey: masterKey)
        self.destinations = destinations
    }

    public struct CreateParameters: Decodable, Sendable {
        public var url: String
        public var enabledEvents: [String]
        public var description: String?
        public var metadata: MetadataParameter?
        public var apiVersion: String?

        enum CodingKeys: String, CodingKey {
            case url
            case enabledEvents = "enabled_events"
            case description, metadata
            case apiVersion = "api_version"
        }
    }

    public struct UpdateParameters: Decodable, Sendable {
        public var url: String?
        public var enabledEvents: [String]?
        public var description: Patch<String>?
        public var metadata: Patch<MetadataParameter>?
        public var disabled: Bool?

        enum CodingKeys: String, CodingKey {
            case url
            case enabledEvents = "enabled_events"
            case description, metadata, disabled
        }
    }

    /// Creates an endpoint and shows its signing secret, as Stripe does.
    public func create(_ params: CreateParameters, by caller: Credential) async throws -> WebhookEndpoint {
        let description = try TextRules.limited(params.description, to: 5000, param: "description")
        let events = try Self.checkedEvents(params.enabledEvents)
        let metadata = try MetadataRules.new(params.metadata)
        // The URL last of the parameters: its check may look the host up.
        let endpoint = WebhookEndpoint(
            id: ObjectID.make(.webhookEndpoint), apiVersion: params.apiVersion, created: Clock.now, description: description,
            enabledEvents: events, metadata: metadata, secret: nil, status: "enabled", url: try await checkedURL(params.url)
        )
        if let version = params.apiVersion, (try? StripeVersion.parse(version)) == nil {
            throw PurseError.invalidParameter("api_version", "Invalid API version: \(version)")
        }
        try await database.autocommit { try await $0.webhooks.insertEndpoint(endpoint, account: caller.accountID) }
        var created = endpoint
        created.secret = secrets.webhookSigningSecret(endpoint.id)
        return created
    }

    public func retrieve(_ id: String, by caller: Credential) async throws -> WebhookEndpoint {
        try await database.autocommit { try await Self.find(id, account: caller.accountID, in: $0) }
    }

    public func update(_ id: String, _ params: UpdateParameters, by caller: Credential) async throws -> WebhookEndpoint {
        let url: String?
        if let requested = params.url { url = try await checkedURL(requested) } else { url = nil }
        let events = try params.enabledEvents.map(Self.checkedEvents)
        return try await database.transaction { repositories in
            var endpoint = try await Self.find(id, account: caller.accountID, lock: true, in: repositories)
            if let url { endpoint.url = url }
            if let events { endpoint.enabledEvents = events }
            if let description = params.description {
                endpoint.description = try TextRules.limited(description.value, to: 5000, param: "description")
            }
            endpoint.metadata = try MetadataRules.updated(endpoint.metadata, with: params.metadata)
            if let disabled = params.disabled { endpoint.status = disabled ? "disabled" : "enabled" }
            try await repositories.webhooks.updateEndpoint(endpoint, account: caller.accountID)
            if endpoint.status == "disabled" {
                // A disabled endpoint hears nothing more, not even what was queued for it.
                try await repositories.webhooks.dropPendingDeliveries(endpoint: id)
            }
            return endpoint
        }
    }

    public func delete(_ id: String, by caller: Credential) async throws -> DeletedObject {
        guard try await database.autocommit({ try await $0.webhooks.deleteEndpoint(id, account: caller.accountID) }) else {
            throw PurseError.noSuch("webhook endpoint", id, param: "id")
        }
        return DeletedObject(id: id, object: "webhook_endpoint")
    }

    public func list(_ params: PageParameters, by caller: Credential) async throws -> Page<WebhookEndpoint> {
        let pagination = try params.pagination()
        return try await database.autocommit { try await $0.webhooks.listEndpoints(account: caller.accountID, pagination: pagination) }
    }

    /// The delivery attempts to an endpoint, newest first.
    public func attempts(_ id: String, _ params: PageParameters, by caller: Credential) async throws -> Page<WebhookDeliveryAttempt> {
        _ = try await retrieve(id, by: caller)
        let pagination = try params.pagination()
        return try await database.autocommit {
            try await $0.webhooks.listAttempts(endpoint: id, account: caller.accountID, pagination: pagination)
        }
    }

    static func checkedEvents(_ events: [String]) throws -> [String] {
        guard !events.isEmpty else {
            throw PurseError.invalidParameter("enabled_events", "Give at least one event type, or * for all.")
        }
        for (index, event) in events.enumerated() where event != "*" && !eventTypes.contains(event) {
            throw PurseError.invalidParameter("enabled_events[\(index)]", "Invalid event type: \(event)")
        }
        return events.distinct
    }

    /// The URL, once the destination rules accept it (``WebhookDestinations/checkRegistration(_:)``).
    func checkedURL(_ text: String) async throws -> String {
        do throws(WebhookDestinationPolicy.Refusal) {
            try await destinations.checkRegistration(text)
        } catch {
            throw PurseError.invalidParameter("url", error.message)
        }
        return text
    }

    private static func find(
        _ id: String, account: String, lock: Bool = false, in repositories: Repositories
    ) async throws -> WebhookEndpoint {
        guard let endpoint = try await repositories.webhooks.findEndpoint(id, account: account, lock: lock) else {
            throw PurseError.noSuch("webhook endpoint", id, param: "id")
        }
        return endpoint
    }
}
