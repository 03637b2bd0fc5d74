public import PurseModels

/// `/v1/billing_portal/configurations` and `/v1/billing_portal/sessions` (secret key): what the
/// customer portal offers, and the sessions whose URL opens it for one customer. Every account
/// has a default configuration, made the first time one of these calls needs it.
public struct BillingPortalService: Sendable {
    private let database: any Database
    private let secrets: DerivedSecrets
    private let publicURL: PublicURL

    public init(database: any Database, masterKey: MasterKey, publicURL: PublicURL) {
        self.database = database
        self.secrets = DerivedSecrets(masterKey: masterKey)
        self.publicURL = publicURL
    }

    // MARK: - Configurations

    public func createConfiguration(
        _ params: BillingPortalConfigurationParameters, by caller: Credential, request: RequestInfo
    ) async throws -> BillingPortalConfiguration {
        guard params.features != nil else { throw PurseError.missingParameter("features") }
        if params.active != nil { throw PurseError.unknownParameter("active") }
        let initial = BillingPortalConfiguration.initial(id: ObjectID.make(.billingPortalConfiguration), isDefault: false, now: Clock.now)
        let configuration = try params.applied(to: initial, creating: true)
        try await database.transaction { repositories in
            try await repositories.billingPortal.insertConfiguration(configuration, account: caller.accountID)
            try await repositories.events.record(
                NewEvent(
                    "billing_portal.configuration.created", object: try JSONValueEncoder().encode(configuration),
                    account: caller.accountID, request: request
                )
            )
        }
        return configuration
    }

    public func updateConfiguration(
        _ id: String, _ params: BillingPortalConfigurationParameters, by caller: Credential, request: RequestInfo
    ) async throws -> BillingPortalConfiguration {
        try await database.transaction { repositories in
            if id == "default" { throw PurseError.noSuch("billing portal configuration", id) }
            let old = try await Self.configuration(id, account: caller.accountID, lock: true, in: repositories)
            var new = try params.applied(to: old, creating: false)
            if old.isDefault, !new.active {
                throw PurseError.invalidParameter("active", "The default configuration cannot be deactivated.")
            }
            guard new != old else { return old }
            new.updated = Clock.now
            try await repositories.billingPortal.updateConfiguration(new, account: caller.accountID)
            let encoder = JSONValueEncoder()
            let (before, after) = (try encoder.encode(old), try encoder.encode(new))
            try await repositories.events.record(
                NewEvent(
                    "billing_portal.configuration.updated", object: after,
                    previousAttributes: AttributeDiff.previousAttributes(from: before, to: after), account: caller.accountID,
                    request: request
                )
            )
            return new
        }
    }

    public func retrieveConfiguration(_ id: String, by caller: Credential) async throws -> BillingPortalConfiguration {
        try await database.transaction { repositories in
            try await Self.ensureDefault(account: caller.accountID, in: repositories)
            return try await Self.configuration(id, account: caller.accountID, lock: false, in: repositories)
        }
    }

    public func listConfigurations(
        _ params: BillingPortalConfigurationListParameters, by caller: Credential
    ) async throws -> Page<BillingPortalConfiguration> {
        let pagination = try params.pagination()
        return try await database.transaction { repositories in
            try await Self.ensureDefault(account: caller.accountID, in: repositories)
            return try await repositories.billingPortal.listConfigurations(
                account: caller.accountID, active: params.active, isDefault: params.isDefault, pagination: pagination
            )
        }
    }

    // MARK: - Sessions

    /// Creates a session; its answer is the only place its `url` ever appears.
    public func createSession(
        _ params: BillingPortalSessionParameters, by caller: Credential, request: RequestInfo
    ) async throws -> BillingPortalSession {
        if params.onBehalfOf != nil {
            throw PurseError.invalidParameter("on_behalf_of", "on_behalf_of is for Stripe Connect platforms, which Purse does not serve.")
        }
        let flow = try params.flowData.map(Self.flow)
        let returnURL = try ReturnURL.checked(params.returnURL)
        let id = ObjectID.make(.billingPortalSession)
        var session = try await database.transaction { repositories -> BillingPortalSession in
            guard try await repositories.customers.isLive(params.customer, visibleTo: caller.visibility) else {
                throw PurseError.noSuch("customer", params.customer, param: "customer")
            }
            let configuration =
                if let requested = params.configuration {
                    try await Self.configuration(requested, account: caller.accountID, lock: false, in: repositories, param: "configuration")
                } else {
                    try await Self.ensureDefault(account: caller.accountID, in: repositories)
                }
            guard configuration.active else {
                throw PurseError.invalidParameter(
                    "configuration", "The configuration \(configuration.id) is not active: activate it, or use another."
                )
            }
            if flow?.type == BillingPortalSessionParameters.FlowType.paymentMethodUpdate.rawValue,
                !configuration.features.paymentMethodUpdate.enabled
            {
                throw PurseError.invalidParameter(
                    "flow_data[type]",
                    "The payment_method_update flow needs a configuration with features[payment_method_update][enabled]=true; "
                        + "\(configuration.id) has it disabled."
                )
            }
            let session = BillingPortalSession(
                id: id, configuration: configuration.id, created: Clock.now, customer: params.customer, flow: flow,
                locale: params.locale?.value, returnURL: returnURL ?? configuration.defaultReturnURL, url: nil
            )
            try await repositories.billingPortal.insertSession(StoredPortalSession(session: session, accountID: caller.accountID))
            // The event carries no url: it is stored, and the url opens the customer's pages.
            try await repositories.events.record(
                NewEvent(
                    "billing_portal.session.created", object: try JSONValueEncoder().encode(session), account: caller.accountID,
                    request: request
                )
            )
            return session
        }
        session.url = Self.url(of: id, base: publicURL.base, secrets: secrets)
        return session
    }

    /// `{base}/p/session/{id}/{token}`, the page a session opens on.
    static func url(of sessionID: String, base: String, secrets: DerivedSecrets) -> String {
        "\(base)/p/session/\(sessionID)/\(secrets.portalSessionToken(sessionID))"
    }

    static func flow(_ data: BillingPortalSessionParameters.FlowData) throws -> BillingPortalSession.Flow {
        guard data.type == .paymentMethodUpdate else {
            let needs =
                data.type == .customerUpdate
                ? "changes customer details, which Purse's portal does not" : "needs subscriptions, which Purse does not keep"
            throw PurseError.invalidParameter(
                "flow_data[type]", "The \(data.type.rawValue) flow \(needs); the portal serves payment_method_update."
            )
        }
        let after = data.afterCompletion
        let completion: BillingPortalSession.AfterCompletion
        switch after?.type ?? .portalHomepage {
        case .portalHomepage:
            try refuse(after?.redirect != nil, "flow_data[after_completion][redirect]", "portal_homepage")
            try refuse(after?.hostedConfirmation != nil, "flow_data[after_completion][hosted_confirmation]", "portal_homepage")
            completion = .init(type: "portal_homepage")
        case .redirect:
            try refuse(after?.hostedConfirmation != nil, "flow_data[after_completion][hosted_confirmation]", "redirect")
            guard let redirect = after?.redirect,
                let target = try ReturnURL.checked(redirect.returnURL, param: "flow_data[after_completion][redirect][return_url]")
            else { throw PurseError.missingParameter("flow_data[after_completion][redirect]") }
            completion = .init(redirect: .init(returnURL: target), type: "redirect")
        case .hostedConfirmation:
            try refuse(after?.redirect != nil, "flow_data[after_completion][redirect]", "hosted_confirmation")
            let message = try TextRules.limited(
                after?.hostedConfirmation?.customMessage, to: 500, param: "flow_data[after_completion][hosted_confirmation][custom_message]"
            )
            completion = .init(hostedConfirmation: .init(customMessage: message), type: "hosted_confirmation")
        }
        return BillingPortalSession.Flow(afterCompletion: completion, type: data.type.rawValue)
    }

    private static func refuse(_ given: Bool, _ param: String, _ type: String) throws {
        if given { throw PurseError.invalidParameter(param, "\(param) cannot be given when flow_data[after_completion][type] is \(type).") }
    }

    /// The account's default configuration, made (payment methods on) when it has none yet.
    @discardableResult
    static func ensureDefault(account: String, in repositories: Repositories) async throws -> BillingPortalConfiguration {
        if let found = try await repositories.billingPortal.findConfiguration("default", account: account, lock: false) { return found }
        try await repositories.billingPortal.insertDefaultConfigurationIfMissing(
            .initial(id: ObjectID.make(.billingPortalConfiguration), isDefault: true, now: Clock.now), account: account
        )
        // Another request may have made it first: read back whichever is the default.
        guard let made = try await repositories.billingPortal.findConfiguration("default", account: account, lock: false) else {
            throw PurseError(.conflict, code: "lock_timeout", message: "The account's default portal configuration is being made; retry.")
        }
        return made
    }

    static func configuration(
        _ id: String, account: String, lock: Bool, in repositories: Repositories, param: String = "id"
    ) async throws -> BillingPortalConfiguration {
        guard id != "default", let found = try await repositories.billingPortal.findConfiguration(id, account: account, lock: lock) else {
            throw PurseError.noSuch("billing portal configuration", id, param: param)
        }
        return found
    }
}
