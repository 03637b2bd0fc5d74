import ArgumentParser

@main
struct Purse: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "purse",
        abstract: "A self-hosted payment-method settings service that speaks Stripe's API.",
        subcommands: [
            ServeCommand.self, MigrateCommand.self, AccountsCommand.self, KeysCommand.self, MasterKeyCommand.self, CertificatesCommand.self,
        ]
    )
}
