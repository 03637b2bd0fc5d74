import Foundation

/// `purse-sheet`'s command line:
///
/// | flag | default | meaning |
/// |---|---|---|
/// | `--backend URL` | `http://127.0.0.1:4243` | the merchant backend (`purse-example-backend`) |
/// | `--token TOKEN` | `demo-token-alice` | the app's sign-in token for that backend |
/// | `--mode ephemeral-key\|customer-session` | `ephemeral-key` | which provider the adapter uses |
/// | `--selection-file PATH` | none | keep a copy of the selected option there, for offline reads |
/// | `--debit-cards-only` | off | show only debit cards (a subclass that filters) |
struct SheetOptions {
    enum Mode: String {
        case ephemeralKey = "ephemeral-key"
        case customerSession = "customer-session"
    }

    var backend = URL(string: "http://127.0.0.1:4243")!
    var token = "demo-token-alice"
    var mode = Mode.ephemeralKey
    var selectionFile: String?
    var debitCardsOnly = false

    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    static let usage = """
        usage: purse-sheet [--backend URL] [--token TOKEN] [--mode ephemeral-key|customer-session]
                           [--selection-file PATH] [--debit-cards-only]
        """

    static func parse(_ arguments: [String]) throws -> SheetOptions {
        var options = SheetOptions()
        var remaining = arguments[...]
        func value(for flag: String) throws -> String {
            guard let value = remaining.popFirst() else { throw Invalid(description: "\(flag) needs a value.\n\(usage)") }
            return value
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--backend":
                let text = try value(for: argument)
                guard let url = URL(string: text), url.host != nil else { throw Invalid(description: "Not a URL: \(text)") }
                options.backend = url
            case "--token":
                options.token = try value(for: argument)
            case "--mode":
                let text = try value(for: argument)
                guard let mode = Mode(rawValue: text) else { throw Invalid(description: "Unknown mode \(text).\n\(usage)") }
                options.mode = mode
            case "--selection-file":
                options.selectionFile = try value(for: argument)
            case "--debit-cards-only":
                options.debitCardsOnly = true
            case "--help", "-h":
                throw Invalid(description: usage)
            default:
                throw Invalid(description: "Unknown argument \(argument).\n\(usage)")
            }
        }
        return options
    }
}
