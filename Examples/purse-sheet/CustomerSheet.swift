import Foundation
import PurseClient

/// The sheet's commands over a ``PurseCustomerAdapter``: what an app's settings screen does
/// with its buttons, one command a line.
struct CustomerSheet {
    let adapter: PurseCustomerAdapter

    static let help = """
        Commands:
          list                          the saved payment methods, the default marked with *
          add [card|us_bank_account|sepa_debit]
                                        add one through a setup intent (asks for the details)
          remove N|pm_...               remove a saved payment method
          default N|pm_...|apple_pay|link|none
                                        pick the default (the same on every device)
          selection                     the selected option as the sheet shows it
          help, quit
        """

    /// Runs one command line; false when the sheet should close.
    func run(_ line: String) async -> Bool {
        let words = line.split(separator: " ").map(String.init)
        guard let command = words.first else { return true }
        do {
            switch command {
            case "list": try await list()
            case "add": try await add(type: words.dropFirst().first ?? "card")
            case "remove": try await remove(try argument(words))
            case "default": try await pickDefault(try argument(words))
            case "selection": try await showSelection()
            case "help": Console.say(Self.help)
            case "quit", "exit": return false
            default: Console.say("Unknown command \(command). Type help for the commands.")
            }
        } catch let error as PurseClientError {
            Console.say("error: \(error.message) [\(error.kind.summary)\(error.requestID.map { ", request \($0)" } ?? "")]")
        } catch {
            Console.say("error: \(error)")
        }
        return true
    }

    private func argument(_ words: [String]) throws -> String {
        guard words.count > 1 else { throw SheetError("\(words[0]) needs an argument. Type help for the commands.") }
        return words[1]
    }

    private func list() async throws {
        let methods = try await adapter.fetchPaymentMethods()
        let selected = try await adapter.fetchSelectedPaymentOption()
        if methods.isEmpty { Console.say("No saved payment methods.") } else { Console.say("Saved payment methods:") }
        for (index, method) in methods.enumerated() {
            let isDefault = selected == .stripeId(method.id)
            Console.say("\(isDefault ? "*" : " ") \(index + 1). \(Self.describe(method))  \(method.id)\(isDefault ? "  (default)" : "")")
        }
        switch selected {
        case .applePay?: Console.say("Default: Apple Pay.")
        case .link?: Console.say("Default: Link.")
        default: break
        }
    }

    private func add(type: String) async throws {
        let details: PaymentMethodDetails
        switch type {
        case "card":
            guard let number = Console.ask("Card number: "), let expiry = Console.ask("Expiry (MM/YY): "),
                let cvc = Console.ask("CVC: ")
            else { return }
            let parts = expiry.split(separator: "/").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 2 else { throw SheetError("Write the expiry as MM/YY, such as 12/34.") }
            details = .card(number: number, expMonth: parts[0], expYear: parts[1], cvc: cvc.isEmpty ? nil : cvc)
        case "us_bank_account":
            guard let routing = Console.ask("Routing number: "), let account = Console.ask("Account number: ") else { return }
            details = .usBankAccount(routingNumber: routing, accountNumber: account, accountHolderType: "individual", accountType: "checking")
        case "sepa_debit":
            guard let iban = Console.ask("IBAN: ") else { return }
            details = .sepaDebit(iban: iban)
        default:
            throw SheetError("Purse sheets add card, us_bank_account or sepa_debit, not \(type).")
        }
        let form = BillingDetailsForm(settings: try await adapter.sheetSettings(), paymentMethodType: details.type)
        let billing = askBillingDetails(form)
        var outcome = try await adapter.addPaymentMethod(details, billingDetails: billing)
        if case .requiresAction(let pending) = outcome {
            Console.say("Your bank asks you to authenticate. Open this page in a browser:")
            Console.say("  \(pending.url.absoluteString)")
            Console.say("Press Enter once you have finished there.")
        }
        while case .requiresAction(let pending) = outcome {
            guard Console.ask("") == "" else {
                Console.say("Stopped waiting: nothing is saved until the page is completed.")
                return
            }
            outcome = try await adapter.finishSetup(pending)
            if case .requiresAction = outcome {
                Console.say("Authentication is not finished yet. Press Enter to check again, or type cancel.")
            }
        }
        if case .succeeded(let method) = outcome {
            Console.say("Saved \(Self.describe(method)) (\(method.id)).")
        }
    }

    /// Asks for the billing fields the settings in force collect, prefilled with their defaults.
    private func askBillingDetails(_ form: BillingDetailsForm) -> BillingDetails {
        var entered = BillingDetails()
        func ask(_ label: String, _ fallback: String?) -> String? {
            let answer = Console.ask(fallback.map { "\(label) [\($0)]: " } ?? "\(label): ") ?? ""
            return answer.isEmpty ? fallback : answer
        }
        for field in form.fields {
            switch field {
            case .name: entered.name = ask("Name", form.defaults.name)
            case .email: entered.email = ask("Email", form.defaults.email)
            case .phone: entered.phone = ask("Phone", form.defaults.phone)
            case .address:
                entered.address.line1 = ask("Address line 1", form.defaults.address.line1)
                entered.address.city = ask("City", form.defaults.address.city)
                entered.address.postalCode = ask("Postal code", form.defaults.address.postalCode)
                entered.address.country = ask("Country (2 letters)", form.defaults.address.country)
                if entered.address.country == "US" { entered.address.state = ask("State", form.defaults.address.state) }
            }
        }
        return entered
    }

    private func remove(_ which: String) async throws {
        let method = try await resolve(which)
        try await adapter.detachPaymentMethod(paymentMethodId: method.id)
        Console.say("Removed \(Self.describe(method)).")
    }

    private func pickDefault(_ which: String) async throws {
        switch which {
        case "none":
            try await adapter.setSelectedPaymentOption(paymentOption: nil)
            Console.say("Default: none.")
        case "apple_pay", "link":
            try await adapter.setSelectedPaymentOption(paymentOption: CustomerPaymentOption(rawValue: which))
            Console.say("Default: \(which == "link" ? "Link" : "Apple Pay").")
        default:
            let method = try await resolve(which)
            try await adapter.setSelectedPaymentOption(paymentOption: .stripeId(method.id))
            Console.say("Default: \(Self.describe(method)).")
        }
    }

    private func showSelection() async throws {
        guard let selection = try await adapter.retrievePaymentOptionSelection() else {
            Console.say("Selected: none.")
            return
        }
        let data = selection.displayData
        Console.say("Selected: \([data.title, data.label].compactMap { $0 }.joined(separator: " "))\(data.brand.map { " (brand \($0))" } ?? "").")
    }

    /// A saved method by its number in the list or its id.
    private func resolve(_ which: String) async throws -> PaymentMethod {
        let methods = try await adapter.fetchPaymentMethods()
        if let number = Int(which) {
            guard methods.indices.contains(number - 1) else { throw SheetError("There is no payment method \(number).") }
            return methods[number - 1]
        }
        guard let method = methods.first(where: { $0.id == which }) else { throw SheetError("There is no payment method \(which).") }
        return method
    }

    /// `Visa •••• 4242`, `STRIPE TEST BANK ••••6789`.
    static func describe(_ method: PaymentMethod) -> String {
        let data = PaymentOptionDisplayData(method)
        return [data.title, data.label].compactMap { $0 }.joined(separator: " ")
    }
}
