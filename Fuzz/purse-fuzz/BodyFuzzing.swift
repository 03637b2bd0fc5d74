import NIOCore
import PurseCore
import PurseParameters

/// What the fuzz target checks of one input: the request-body decoders (Stripe's form encoding
/// and JSON, as `RequestParameters.fromBody` picks them by content type) and the decoding of the
/// parameters into a customer create either succeed or refuse with a ``PurseError`` — which the
/// API answers as a 4xx. Anything else (a crash, another error, a hang libFuzzer times out) is a
/// finding.
enum BodyFuzzing {
    static let contentTypes = ["application/x-www-form-urlencoded", "application/json"]

    static func check(_ bytes: [UInt8]) {
        for contentType in contentTypes {
            let parameters: ParamObject
            do {
                parameters = try RequestParameters.fromBody(ByteBuffer(bytes: bytes), contentType: contentType)
            } catch is PurseError {
                continue
            } catch {
                fatalError("\(contentType) body refused with \(type(of: error)), not a PurseError: \(error)")
            }
            do {
                _ = try ParamDecoder().decode(CustomerCreateParameters.self, from: parameters)
            } catch is PurseError {
                continue
            } catch {
                fatalError("decoding a customer create threw \(type(of: error)), not a PurseError: \(error)")
            }
        }
    }
}
