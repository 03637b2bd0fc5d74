import PurseClient

extension PurseClientError.Kind {
    /// `cardDeclined card_declined`, `invalidRequest payment_method_data[card][number]`.
    var summary: String {
        switch self {
        case .unauthenticated: "unauthenticated"
        case .cardDeclined(let code): "cardDeclined \(code)"
        case .invalidRequest(let param, _): "invalidRequest\(param.map { " \($0)" } ?? "")"
        case .rateLimited: "rateLimited"
        case .server: "server"
        case .transport: "transport"
        }
    }
}
