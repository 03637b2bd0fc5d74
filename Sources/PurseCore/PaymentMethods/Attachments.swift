import PurseModels

/// Attaching payment methods to customers: which methods may be attached, the limit per customer,
/// and the processor's check before it.
enum Attachments {
    /// The most payment methods one customer may have attached.
    static let maximumPerCustomer = 500

    /// Resolves `id` for attaching to `customer`: a test token becomes a new payment method, an
    /// id is looked up; either way the processor's check runs first. A method already attached
    /// to `customer` is returned as it is.
    static func prepare(
        _ id: String, to customer: String, caller: Credential, param: String, factory: PaymentMethodFactory,
        processor: any Processor, database: any Database
    ) async throws -> AttachPreparation {
        let reference: String
        let type: PaymentMethodType
        let prepared: PreparedAttachment
        if let token = try factory.make(token: id, account: caller.accountID) {
            (reference, type, prepared) = (token.processorReference, token.type, PreparedAttachment(id: token.model.id, new: token))
        } else {
            // A customer's credential may attach any unattached method of its account to itself.
            let account = Visibility(account: caller.accountID)
            let found = try await database.autocommit { try await $0.paymentMethods.find(id, visibleTo: account, lock: false) }
            guard let found else { throw PurseError.noSuch("PaymentMethod", id, param: param) }
            if found.state == .attached, found.model.customer == customer { return .alreadyAttached(found.model) }
            try checkAttachable(found, caller: caller)
            (reference, type, prepared) = (found.processorReference, found.type, PreparedAttachment(id: id, new: nil))
        }
        if let refusal = await processor.decide(reference: reference, type: type, at: .attach).refusal {
            throw refusal
        }
        return .ready(prepared)
    }

    /// Attaches `id` to the locked customer `customer`. Not changed when it already was.
    static func attach(
        _ id: String, to customer: String, caller: Credential, in repositories: Repositories
    ) async throws
        -> (method: PaymentMethod, changed: Bool)
    {
        if let attached = try await repositories.paymentMethods.attach(
            id, to: customer, account: caller.accountID, limit: maximumPerCustomer
        ) {
            return (attached, true)
        }
        let account = Visibility(account: caller.accountID)
        guard let current = try await repositories.paymentMethods.find(id, visibleTo: account, lock: false) else {
            throw PurseError.noSuch("PaymentMethod", id, param: "id")
        }
        if current.state == .attached, current.model.customer == customer { return (current.model, false) }
        try checkAttachable(current, caller: caller)
        throw PurseError(
            .invalidRequest, code: "customer_max_payment_methods",
            message: "The customer already has the maximum of \(maximumPerCustomer) attached payment methods."
        )
    }

    /// Refuses methods that cannot be attached: attached elsewhere, or detached for good.
    static func checkAttachable(_ method: StoredPaymentMethod, caller: Credential) throws {
        switch method.state {
        case .unattached:
            return
        case .attached where caller.customerID != nil && method.model.customer != caller.customerID:
            // A customer's credential must not learn that another customer's method exists.
            throw PurseError.noSuch("PaymentMethod", method.model.id, param: "id")
        case .attached:
            throw PurseError(
                .invalidRequest, code: "payment_method_unexpected_state",
                message: "The payment method you provided has already been attached to a customer.",
                param: "payment_method"
            )
        case .detached:
            throw PurseError(
                .invalidRequest, code: "payment_method_unexpected_state",
                message: "The provided PaymentMethod was previously used with a PaymentIntent without Customer attachment, "
                    + "shared with a connected account without Customer attachment, or was detached from a Customer. "
                    + "It may not be used again. To use a PaymentMethod multiple times, you must attach it to a Customer first.",
                param: "payment_method"
            )
        }
    }
}

/// What attaching needs done inside the transaction, if anything.
enum AttachPreparation: Sendable {
    case alreadyAttached(PaymentMethod)
    case ready(PreparedAttachment)
}

/// A payment method checked and ready to attach inside a transaction.
struct PreparedAttachment: Sendable {
    let id: String
    /// The method a test token stands for, to insert first.
    let new: NewPaymentMethod?
}

extension ProcessorDecision {
    /// The error a refusal becomes; nil when approved.
    var refusal: PurseError? {
        switch self {
        case .approved:
            return nil
        case .declined(let code, let declineCode, let message):
            return PurseError(.card, code: code, message: message, declineCode: declineCode)
        case .requiresAuthentication:
            return PurseError(
                .card, code: "authentication_required",
                message: "This card requires authentication: save it with a SetupIntent instead.",
                declineCode: "authentication_required"
            )
        case .unusable(_, let message):
            return PurseError(.invalidRequest, code: "bank_account_unusable", message: message, param: "payment_method")
        }
    }
}
