import Foundation
import Hummingbird

/// `purse-example-backend`: the part of a merchant's server a customer sheet needs, as a
/// reference. It signs in demo users (`Authorization: Bearer demo-token-alice`), keeps one Purse
/// customer per user, and mints ephemeral keys, customer sessions and setup intents for them
/// with Purse's secret key. See `BackendConfiguration` for its settings.
@main
struct ExampleBackend {
    static func main() async throws {
        let configuration: BackendConfiguration
        do {
            configuration = try BackendConfiguration.load(
                arguments: CommandLine.arguments, environment: ProcessInfo.processInfo.environment
            )
        } catch {
            FileHandle.standardError.write(Data("purse-example-backend: \(error)\n".utf8))
            exit(2)
        }
        let purse = PurseSecretAPI(baseURL: configuration.purseURL, secretKey: configuration.secretKey)
        let router = Router()
        CustomerSheetRoutes(
            purse: purse, customers: CustomerDirectory(purse: purse, testClock: configuration.testClock), publishableKey: configuration.publishableKey
        ).register(on: router)
        let app = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port)),
            onServerRunning: { channel in
                // A line scripts and tests wait for.
                let port = channel.localAddress?.port ?? configuration.port
                FileHandle.standardOutput.write(Data("purse-example-backend: listening on port \(port), Purse at \(configuration.purseURL)\n".utf8))
            }
        )
        try await app.runService()
    }
}
