import Foundation

/// The example backend's settings, read once at start:
///
/// | flag | environment | default | meaning |
/// |---|---|---|---|
/// | — | `PURSE_SECRET_KEY` | required | Purse's secret key (`sk_test_...`); never sent to apps |
/// | — | `PURSE_PUBLISHABLE_KEY` | required | Purse's publishable key, handed to apps by `GET /config` |
/// | — | `PURSE_URL` | `http://127.0.0.1:4242` | where Purse is, for this backend and for apps |
/// | `--host` | `EXAMPLE_BACKEND_HOST` | `127.0.0.1` | address to listen on |
/// | `--port` | `EXAMPLE_BACKEND_PORT` | `4243` | port to listen on (`0`: any free one) |
/// | `--test-clock` | `EXAMPLE_TEST_CLOCK` | none | a test clock (`clock_...`): the demo users' customers live on it |
struct BackendConfiguration: CustomStringConvertible {
    let secretKey: String
    let publishableKey: String
    let purseURL: URL
    let host: String
    let port: Int
    let testClock: String?

    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    static func load(arguments: [String], environment: [String: String]) throws -> BackendConfiguration {
        func flag(_ name: String) -> String? {
            guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
            return arguments[index + 1]
        }
        guard let secretKey = environment["PURSE_SECRET_KEY"], secretKey.hasPrefix("sk_") else {
            throw Invalid(description: "Set PURSE_SECRET_KEY to Purse's secret key (sk_test_...).")
        }
        guard let publishableKey = environment["PURSE_PUBLISHABLE_KEY"], publishableKey.hasPrefix("pk_") else {
            throw Invalid(description: "Set PURSE_PUBLISHABLE_KEY to Purse's publishable key (pk_test_...).")
        }
        let urlText = environment["PURSE_URL"] ?? "http://127.0.0.1:4242"
        guard let purseURL = URL(string: urlText), purseURL.host != nil else {
            throw Invalid(description: "PURSE_URL must be an absolute URL, such as http://127.0.0.1:4242.")
        }
        let portText = flag("--port") ?? environment["EXAMPLE_BACKEND_PORT"] ?? "4243"
        guard let port = Int(portText), (0...65_535).contains(port) else {
            throw Invalid(description: "The port must be a number from 0 to 65535, not '\(portText)'.")
        }
        let testClock = flag("--test-clock") ?? environment["EXAMPLE_TEST_CLOCK"]
        if let testClock, !testClock.hasPrefix("clock_") {
            throw Invalid(description: "The test clock must be a test clock's id (clock_...), not '\(testClock)'.")
        }
        return BackendConfiguration(
            secretKey: secretKey, publishableKey: publishableKey, purseURL: purseURL,
            host: flag("--host") ?? environment["EXAMPLE_BACKEND_HOST"] ?? "127.0.0.1", port: port, testClock: testClock
        )
    }

    /// Everything but the secret key, which is masked.
    var description: String {
        "BackendConfiguration(purseURL: \(purseURL), publishableKey: \(publishableKey), secretKey: sk_****\(secretKey.suffix(4)), host: \(host), port: \(port), testClock: \(testClock ?? "none"))"
    }
}
