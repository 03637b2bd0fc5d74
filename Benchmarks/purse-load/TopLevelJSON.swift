import Foundation
import NIOCore

/// The string (and integer) fields at the top of a JSON object response.
enum TopLevelJSON {
    static func strings(in buffer: ByteBuffer) -> [String: String]? {
        let data = Data(buffer.readableBytesView)
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return nil }
        var strings: [String: String] = [:]
        for (key, value) in object {
            if let text = value as? String {
                strings[key] = text
            } else if let number = value as? NSNumber {
                strings[key] = number.stringValue
            }
        }
        return strings
    }
}
