public import PurseModels

/// What a customer session's key may do, from the session's features: the customer sheet's when
/// that component is enabled, else the mobile payment element's, else the payment element's.
public struct SessionPermissions: Sendable, Hashable {
    public var canRemove: Bool
    public var canRemoveLast: Bool
    /// The `allow_redisplay` values of methods the session shows.
    public var allowRedisplayFilters: [String]

    public init(canRemove: Bool, canRemoveLast: Bool, allowRedisplayFilters: [String]) {
        self.canRemove = canRemove
        self.canRemoveLast = canRemoveLast
        self.allowRedisplayFilters = allowRedisplayFilters
    }

    public init(_ components: CustomerSessionComponents) {
        if let sheet = components.customerSheet.features {
            canRemove = sheet.paymentMethodRemove == "enabled"
            canRemoveLast = sheet.paymentMethodRemoveLast == "enabled"
            allowRedisplayFilters = sheet.paymentMethodAllowRedisplayFilters
        } else if let mobile = components.mobilePaymentElement.features {
            canRemove = mobile.paymentMethodRemove == "enabled"
            canRemoveLast = mobile.paymentMethodRemoveLast == "enabled"
            allowRedisplayFilters = mobile.paymentMethodAllowRedisplayFilters
        } else if let element = components.paymentElement.features {
            canRemove = element.paymentMethodRemove == "enabled"
            canRemoveLast = true
            allowRedisplayFilters = element.paymentMethodAllowRedisplayFilters
        } else {
            canRemove = false
            canRemoveLast = false
            allowRedisplayFilters = ["always"]
        }
    }
}
