public import PurseModels

/// Financial Connections as the mobile sheets use it to add a US bank account: a session made for
/// a setup intent (stripe-ios) or for an intent not created yet (stripe-android), synchronized to
/// send the app's browser to Purse's test bank, completed there, and read back by its client
/// secret. A linked account becomes a `us_bank_account` payment method through
/// ``linkedAccount(in:prefix:setupIntent:caller:database:)``.
public struct FinancialConnectionsService: Sendable {
    private let database: any Database
    private let processor: any Processor
    private let fingerprinter: Fingerprinter
    private let secrets: DerivedSecrets
    private let publicURL: PublicURL

    public init(database: any Database, processor: any Processor, masterKey: MasterKey, publicURL: PublicURL) {
        self.database = database
        self.processor = processor
        self.fingerprinter = Fingerprinter(masterKey: masterKey)
        self.secrets = DerivedSecrets(masterKey: masterKey)
        self.publicURL = publicURL
    }

    // MARK: - Creating a session

    /// A session for linking the account a setup intent will save; its customer's.
    public func create(
        forSetupIntent id: String, _ params: SetupIntentLinkParameters, by caller: Credential
    ) async throws -> FinancialConnectionsSession {
        try SetupIntentService.checkClientSecret(params.clientSecret, of: id, caller: caller, secrets: secrets)
        if let type = params.paymentMethodData?.type, type != .usBankAccount {
            throw PurseError.invalidParameter(
                "payment_method_data[type]", "Financial Connections links us_bank_account payment methods, not \(type.rawValue)."
            )
        }
        let (secrets, publicURL) = (self.secrets, self.publicURL)
        let session = try await database.transaction { repositories in
            guard let intent = try await repositories.setupIntents.find(id, account: caller.accountID, lock: false) else {
                throw PurseError.noSuch("setupintent", id, param: "intent", inPath: true)
            }
            try SetupIntentService.requireOpen(
                intent, action: "link a bank account to", caller: caller, secrets: secrets, publicURL: publicURL
            )
            guard intent.options.verificationMethod != .microdeposits else {
                throw PurseError.invalidParameter(
                    "payment_method_options[us_bank_account][verification_method]",
                    "This SetupIntent verifies bank accounts with microdeposits: it takes the account's numbers, not an "
                        + "account linked through Financial Connections."
                )
            }
            guard intent.intent.paymentMethodTypes.contains(PaymentMethodType.usBankAccount.rawValue) else {
                throw PurseError.invalidParameter(
                    "payment_method_data[type]",
                    "The payment method type us_bank_account is not allowed by this SetupIntent's payment_method_types "
                        + "(\(intent.intent.paymentMethodTypes.joined(separator: ", ")))."
                )
            }
            let session = StoredFinancialConnectionsSession(
                id: ObjectID.make(.financialConnectionsSession), accountID: caller.accountID, created: Clock.now,
                customer: intent.intent.customer, setupIntent: id, uniqueID: nil, hostedSurface: params.hostedSurface,
                link: intent.options.financialConnections
            )
            try await repositories.financialConnections.insert(session)
            return session
        }
        return render(session)
    }

    /// A session for an intent the app has not created yet, named by its elements session.
    public func create(deferred params: DeferredLinkParameters, by caller: Credential) async throws -> FinancialConnectionsSession {
        guard !params.uniqueID.isEmpty, params.uniqueID.count <= 200 else {
            throw PurseError.invalidParameter("unique_id", "unique_id must have 1 to 200 characters.")
        }
        if params.verificationMethod == .microdeposits {
            throw PurseError.invalidParameter(
                "verification_method",
                "Purse's test bank verifies accounts instantly: use automatic or instant, not microdeposits."
            )
        }
        let session = try await database.transaction { repositories in
            if let customer = params.customer,
                !(try await repositories.customers.isLive(customer, visibleTo: caller.visibility))
            {
                throw PurseError.noSuch("customer", customer, param: "customer")
            }
            let session = StoredFinancialConnectionsSession(
                id: ObjectID.make(.financialConnectionsSession), accountID: caller.accountID, created: Clock.now,
                customer: params.customer, setupIntent: nil, uniqueID: params.uniqueID, hostedSurface: params.hostedSurface
            )
            try await repositories.financialConnections.insert(session)
            return session
        }
        return render(session)
    }

    // MARK: - What the SDKs call with the session's client secret

    /// The manifest that sends the app's browser to the test bank. The app named here is the
    /// one the browser returns to.
    public func synchronize(_ params: SynchronizeParameters, by caller: Credential) async throws -> FinancialConnectionsSynchronization {
        let appID = try Self.appID(params.mobile)
        let id = try sessionID(ofClientSecret: params.clientSecret)
        let session = try await database.transaction { repositories in
            guard var session = try await repositories.financialConnections.find(id, account: caller.accountID, lock: true) else {
                throw Self.unknownClientSecret
            }
            if let appID, session.status == .pending, session.appID != appID {
                session.appID = appID
                try await repositories.financialConnections.update(session)
            }
            return session
        }
        let returnURLs = Self.returnURLs(appID: session.appID)
        return FinancialConnectionsSynchronization(
            manifest: .init(
                id: session.id, hostedAuthURL: testBankURL(of: session.id), successURL: returnURLs.success,
                cancelURL: returnURLs.cancel
            )
        )
    }

    /// The session as it stands (the SDKs' session receipt).
    public func receipt(clientSecret: String, by caller: Credential) async throws -> FinancialConnectionsSession {
        render(try await find(clientSecret: clientSecret, by: caller))
    }

    /// The accounts linked through the session after `startingAfter` (a session links one).
    public func accounts(
        _ params: LinkedAccountListParameters, by caller: Credential
    ) async throws -> [FinancialConnectionsAccount] {
        let session = render(try await find(clientSecret: params.clientSecret, by: caller))
        guard let after = params.startingAfter else { return session.accounts.data }
        guard let index = session.accounts.data.firstIndex(where: { $0.id == after }) else {
            throw PurseError.invalidParameter("starting_after", "No such account on this session: '\(after)'.", code: "resource_missing")
        }
        return Array(session.accounts.data[(index + 1)...])
    }

    /// The app closed the sheet outside the browser: a session still pending is cancelled.
    public func complete(clientSecret: String, by caller: Credential) async throws -> FinancialConnectionsSession {
        let id = try sessionID(ofClientSecret: clientSecret)
        let session = try await database.transaction { repositories in
            guard var session = try await repositories.financialConnections.find(id, account: caller.accountID, lock: true) else {
                throw Self.unknownClientSecret
            }
            if session.status == .pending {
                session.status = .cancelled
                try await repositories.financialConnections.update(session)
            }
            return session
        }
        return render(session)
    }

    // MARK: - The secret key's reads

    public func retrieve(_ id: String, by caller: Credential) async throws -> FinancialConnectionsSession {
        let session = try await database.autocommit { try await $0.financialConnections.find(id, account: caller.accountID, lock: false) }
        guard let session else { throw PurseError.noSuch("financial connections session", id, param: "session", inPath: true) }
        return render(session)
    }

    public func retrieve(account id: String, by caller: Credential) async throws -> FinancialConnectionsAccount {
        let session = try await database.autocommit { try await $0.financialConnections.find(linkedAccount: id, account: caller.accountID) }
        guard let account = session.flatMap({ render($0).paymentAccount }) else {
            throw PurseError.noSuch("financial connections account", id, param: "account", inPath: true)
        }
        return account
    }

    // MARK: - The test-bank page

    /// What the page shows: the session, and where the browser goes back to.
    public func testBankPage(_ id: String, token: String) async throws -> TestBankVisit {
        guard secrets.isTestBankPageToken(token, session: id) else { throw Self.noSuchPage }
        let session = try await database.autocommit { try await $0.financialConnections.find(id, account: nil, lock: false) }
        guard let session else { throw Self.noSuchPage }
        return TestBankVisit(session: session)
    }

    /// Links the chosen account: the session succeeds with it. A session no longer pending is
    /// left as it is.
    public func link(_ selection: TestBankSelection, session id: String, token: String) async throws -> TestBankVisit {
        guard secrets.isTestBankPageToken(token, session: id) else { throw Self.noSuchPage }
        let (routing, accountNumber, subcategory) = Self.numbers(of: selection)
        let number: USBankAccountNumber
        do {
            number = try USBankAccountNumber(routingNumber: routing, accountNumber: accountNumber)
        } catch .routingNumber {
            throw PurseError.invalidParameter("routing_number", "The routing number is not a valid ABA routing number.")
        } catch {
            throw PurseError.invalidParameter("account_number", "The account number must have 4 to 17 digits.")
        }
        let (processor, fingerprinter) = (self.processor, self.fingerprinter)
        return try await database.transaction { repositories in
            guard var session = try await repositories.financialConnections.find(id, account: nil, lock: true) else {
                throw Self.noSuchPage
            }
            guard session.status == .pending else { return TestBankVisit(session: session) }
            guard session.link.allows(subcategory: subcategory) else {
                throw PurseError.invalidParameter(
                    "account_type", "This app links \(TestBankVisit(session: session).subcategories.joined(separator: " and ")) accounts only.")
            }
            let enrollment = processor.enroll(number)
            let institution = enrollment.bankName ?? "Bank \(number.routingNumber)"
            session.linkedAccount = LinkedBankAccount(
                id: ObjectID.make(.financialConnectionsAccount), created: Clock.now, institutionName: institution,
                displayName: subcategory == "savings" ? "Savings" : "Checking", last4: number.last4,
                routingNumber: number.routingNumber, subcategory: subcategory,
                fingerprint: fingerprinter.fingerprint(of: number, account: session.accountID),
                processorReference: enrollment.reference
            )
            session.status = .succeeded
            try await repositories.financialConnections.update(session)
            return TestBankVisit(session: session, decidedNow: true)
        }
    }

    /// The customer left the page: a pending session is cancelled.
    public func cancel(session id: String, token: String) async throws -> TestBankVisit {
        guard secrets.isTestBankPageToken(token, session: id) else { throw Self.noSuchPage }
        return try await database.transaction { repositories in
            guard var session = try await repositories.financialConnections.find(id, account: nil, lock: true) else {
                throw Self.noSuchPage
            }
            guard session.status == .pending else { return TestBankVisit(session: session) }
            session.status = .cancelled
            try await repositories.financialConnections.update(session)
            return TestBankVisit(session: session, decidedNow: true)
        }
    }

    // MARK: - Saving a linked account

    /// The linked account that `us_bank_account[link_account_session]` or
    /// `us_bank_account[financial_connections_account]` of `params` names, or nil when neither
    /// is given. `prefix` is where `params` sit in the request (`payment_method_data`);
    /// `setupIntent`, the intent being confirmed with it, which must be the one a session made
    /// for an intent was made for.
    public static func linkedAccount(
        in params: PaymentMethodCreateParameters?, prefix: String?, setupIntent: String?, caller: Credential,
        database: any Database
    ) async throws -> LinkedBankAccount? {
        guard let bank = params?.usBankAccount, bank.linkAccountSession != nil || bank.financialConnectionsAccount != nil else {
            return nil
        }
        let param = ParameterPath.nested("us_bank_account", under: prefix)
        return try await database.autocommit { repositories in
            try await linkedAccount(for: bank, param: param, setupIntent: setupIntent, caller: caller, in: repositories)
        }
    }

    private static func linkedAccount(
        for bank: USBankAccountParameters, param: String, setupIntent: String?, caller: Credential, in repositories: Repositories
    ) async throws -> LinkedBankAccount {
        if bank.accountNumber != nil || bank.routingNumber != nil {
            throw PurseError.invalidParameter(
                param, "Give either the account's numbers or a linked account (link_account_session, financial_connections_account), not both."
            )
        }
        let session: StoredFinancialConnectionsSession
        let named: String
        switch (bank.linkAccountSession, bank.financialConnectionsAccount) {
        case (let id?, nil):
            named = "\(param)[link_account_session]"
            guard let found = try await repositories.financialConnections.find(id, account: caller.accountID, lock: false) else {
                throw PurseError.noSuch("financial connections session", id, param: named)
            }
            session = found
        case (nil, let id?):
            named = "\(param)[financial_connections_account]"
            guard let found = try await repositories.financialConnections.find(linkedAccount: id, account: caller.accountID) else {
                throw PurseError.noSuch("financial connections account", id, param: named)
            }
            session = found
        default:
            throw PurseError.invalidParameter(param, "Give link_account_session or financial_connections_account, not both.")
        }
        guard session.status == .succeeded, let account = session.linkedAccount else {
            throw PurseError.invalidParameter(
                named,
                "The Financial Connections session \(session.id) has not linked an account (its status is \(session.status.rawValue))."
            )
        }
        if let intent = session.setupIntent, let setupIntent, intent != setupIntent {
            throw PurseError.invalidParameter(named, "The Financial Connections session \(session.id) was made for another SetupIntent.")
        }
        return account
    }

    // MARK: - Rendering

    func render(_ session: StoredFinancialConnectionsSession) -> FinancialConnectionsSession {
        let holder = session.customer.map(FinancialConnectionsSession.AccountHolder.init(customer:))
        let account = session.linkedAccount.map {
            FinancialConnectionsAccount(
                id: $0.id, accountHolder: holder, created: $0.created, displayName: $0.displayName,
                institutionName: $0.institutionName, last4: $0.last4, subcategory: $0.subcategory
            )
        }
        var rendered = FinancialConnectionsSession(
            id: session.id, accountHolder: holder, linkedAccount: account,
            clientSecret: secrets.financialConnectionsClientSecret(session.id), status: session.status
        )
        rendered.permissions = session.link.permissions.map(\.rawValue)
        rendered.prefetch = session.link.prefetch.isEmpty ? nil : session.link.prefetch.map(\.rawValue)
        rendered.returnURL = session.link.returnURL
        rendered.filters.accountSubcategories = session.link.accountSubcategories?.map(\.rawValue)
        return rendered
    }

    /// The page's address. It always has a query: the SDKs append theirs with `&`.
    public func testBankURL(of id: String) -> String {
        "\(publicURL.base)/v1/financial_connections/test_bank/\(secrets.testBankPageToken(id))?session=\(id)"
    }

    /// Where the browser returns to: the custom scheme the SDKs' web flows wait for
    /// (stripe-android's intent filters name `stripe-auth://link-accounts/<package>/...`).
    public static func returnURLs(appID: String?) -> (success: String, cancel: String) {
        let base = "stripe-auth://link-accounts/\(appID ?? "purse")"
        return (base + "/success", base + "/cancel")
    }

    private func find(clientSecret: String, by caller: Credential) async throws -> StoredFinancialConnectionsSession {
        let id = try sessionID(ofClientSecret: clientSecret)
        let session = try await database.autocommit { try await $0.financialConnections.find(id, account: caller.accountID, lock: false) }
        guard let session else { throw Self.unknownClientSecret }
        return session
    }

    private func sessionID(ofClientSecret clientSecret: String) throws -> String {
        guard let id = secrets.financialConnectionsSession(ofClientSecret: clientSecret) else { throw Self.unknownClientSecret }
        return id
    }

    /// `mobile[application_id]`, else `mobile[verified_app_id]`: a package or bundle name.
    private static func appID(_ mobile: SynchronizeParameters.Mobile?) throws -> String? {
        let (param, value) =
            mobile?.applicationID.map { ("mobile[application_id]", $0) } ?? mobile?.verifiedAppID.map { ("mobile[verified_app_id]", $0) }
            ?? ("", "")
        guard !value.isEmpty else { return nil }
        guard value.count <= 200, value.allSatisfy({ $0.isASCIILetter || $0.isASCIIDigit || "._-".contains($0) }) else {
            throw PurseError.invalidParameter(param, "\(param) must be an app's package or bundle name (letters, digits, '.', '_', '-').")
        }
        return value
    }

    private static func numbers(of selection: TestBankSelection) -> (routing: String, account: String, subcategory: String) {
        switch selection {
        case .test(let account): (TestInstruments.testRoutingNumber, account.accountNumber, account.subcategory)
        case .entered(let routing, let account, let subcategory): (routing, account, subcategory)
        }
    }

    private static let unknownClientSecret = PurseError.invalidParameter(
        "client_secret", "The client_secret does not match any Financial Connections session.", code: "resource_missing"
    )

    static let noSuchPage = PurseError(.notFound, code: "resource_missing", message: "No such test-bank page.")
}
