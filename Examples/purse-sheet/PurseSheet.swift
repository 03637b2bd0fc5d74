import Foundation
import PurseClient

/// `purse-sheet`: a customer sheet in the terminal, built on PurseClient as an app's settings
/// screen would be. It talks to the merchant backend for credentials and to Purse with the
/// publishable key; commands come one a line from standard input (a person or a script).
@main
struct PurseSheet {
    static func main() async {
        let options: SheetOptions
        do {
            options = try SheetOptions.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            Console.complain("\(error)")
            exit(2)
        }
        let backend = MerchantBackend(baseURL: options.backend, token: options.token)
        let adapter: PurseCustomerAdapter
        do {
            adapter = try await makeAdapter(options, backend: backend)
            let customer = try await adapter.customerID()
            Console.say("Purse customer sheet for \(customer) (\(options.mode.rawValue) mode), Purse at \(adapter.baseURL.absoluteString).")
            Console.say("Type help for the commands.")
        } catch {
            Console.complain("purse-sheet: cannot open the sheet: \(error)")
            exit(1)
        }
        let sheet = CustomerSheet(adapter: adapter)
        while let line = Console.ask("> ") {
            guard await sheet.run(line) else { break }
        }
        Console.say("Bye.")
    }

    /// The adapter, as an app builds it: providers that call its backend, the publishable key
    /// and Purse's URL from that backend's `/config`.
    static func makeAdapter(_ options: SheetOptions, backend: MerchantBackend) async throws -> PurseCustomerAdapter {
        let config = try await backend.config()
        let store = options.selectionFile.map { FileSelectionStore(path: $0) }
        let setupIntents: @Sendable () async throws -> String = { try await backend.setupIntentClientSecret() }
        switch options.mode {
        case .ephemeralKey:
            let keys: @Sendable () async throws -> CustomerEphemeralKey = { try await backend.ephemeralKey() }
            return options.debitCardsOnly
                ? DebitCardsOnlyAdapter(
                    customerEphemeralKeyProvider: keys, setupIntentClientSecretProvider: setupIntents,
                    publishableKey: config.publishableKey, baseURL: config.purseURL, selectionStore: store
                )
                : PurseCustomerAdapter(
                    customerEphemeralKeyProvider: keys, setupIntentClientSecretProvider: setupIntents,
                    publishableKey: config.publishableKey, baseURL: config.purseURL, selectionStore: store
                )
        case .customerSession:
            let sessions: @Sendable () async throws -> CustomerSessionClientSecret = { try await backend.customerSession() }
            return options.debitCardsOnly
                ? DebitCardsOnlyAdapter(
                    customerSessionClientSecretProvider: sessions, setupIntentClientSecretProvider: setupIntents,
                    publishableKey: config.publishableKey, baseURL: config.purseURL, selectionStore: store
                )
                : PurseCustomerAdapter(
                    customerSessionClientSecretProvider: sessions, setupIntentClientSecretProvider: setupIntents,
                    publishableKey: config.publishableKey, baseURL: config.purseURL, selectionStore: store
                )
        }
    }
}
