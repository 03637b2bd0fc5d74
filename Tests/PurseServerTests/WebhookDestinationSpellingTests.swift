import PurseCore
import Testing

@testable import PurseServer

/// Every spelling of a refused address, read by the system's resolver as a connection would read
/// it, is refused in the https-only mode: at registration and at delivery. No database, and no
/// DNS: numeric spellings and special-use names never reach a name server.
@Suite("Webhook destination spellings")
struct WebhookDestinationSpellingTests {
    static let destinations = WebhookDestinations(
        policy: WebhookDestinationPolicy(requireHTTPS: true), resolver: SystemHostResolver()
    )

    @Test(arguments: [
        ("2130706433", "127.0.0.1"), ("0x7f000001", "127.0.0.1"), ("0X7F000001", "127.0.0.1"), ("0x7f.0.0.1", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"), ("127.1", "127.0.0.1"), ("017700000001", "127.0.0.1"), ("127.0.0.1.", "127.0.0.1"),
        ("0x7f.1.", "127.0.0.1"), ("0", "0.0.0.0"), ("0x0a.1", "10.0.0.1"), ("0:0:0:0:0:0:0:1", "::1"), ("::", "::"),
        ("::ffff:127.0.0.1", "::ffff:127.0.0.1"), ("::ffff:7f00:1", "::ffff:127.0.0.1"),
    ])
    func numericSpellingsAreReadAsAConnectionWould(_ spelling: String, _ address: String) async throws {
        #expect(try await SystemHostResolver().addresses(of: spelling) == [IPAddress(address)!])
        #expect(SystemHostResolver.numericAddress(spelling.hasSuffix(".") ? String(spelling.dropLast()) : spelling) != nil)
    }

    @Test(arguments: [
        // From the report: loopback in every spelling.
        "https://localhost./", "https://[0:0:0:0:0:0:0:1]/", "https://[::]/", "https://2130706433/", "https://0x7f000001/",
        "https://0x7f.0.0.1/", "https://0177.0.0.1/", "https://127.1/", "https://017700000001/", "https://[::ffff:127.0.0.1]/",
        "https://[::ffff:7f00:1]/",
        // And the rest of the non-public space.
        "https://127.0.0.1.:8443/", "https://0/", "https://0.0.0.0/", "https://10.1.2.3/", "https://0x0a.1/", "https://172.16.5.4/",
        "https://192.168.0.4/", "https://100.64.0.1/", "https://169.254.169.254/latest/meta-data/", "https://[fe80::1]/",
        "https://[fd00::1]/", "https://[fc00::1]/", "https://224.0.0.1/", "https://[ff02::1]/", "https://255.255.255.255/",
        "https://240.0.0.1/", "https://192.0.2.1/", "https://[64:ff9b::7f00:1]/", "https://[2002:7f00:1::1]/",
        "https://[::ffff:169.254.169.254]/", "https://[::127.0.0.1]/",
        // Special-use names, which are refused before any lookup.
        "https://localhost/", "https://LOCALHOST:443/", "https://api.localhost/", "https://printer.local/",
        "https://metadata.google.internal/", "https://nas.home.arpa./", "https://example.test/", "https://x.invalid/",
        "https://test./", "https://intranet/",
    ])
    func everySpellingIsRefused(_ url: String) async {
        await #expect(throws: WebhookDestinationPolicy.Refusal.notPublic, "\(url)") {
            try await Self.destinations.checkRegistration(url)
        }
        #expect(await Self.destinations.resolveForDelivery(url) == .failure(.destinationNotAllowed), "\(url)")
    }

    @Test func publicAddressesInAnySpellingAreAccepted() async throws {
        for url in ["https://8.8.8.8/", "https://134744072/", "https://[2606:4700:4700::1111]/", "https://[::ffff:8.8.8.8]/"] {
            try await Self.destinations.checkRegistration(url)
            #expect(try await Self.destinations.resolveForDelivery(url).get().addresses.count == 1, "\(url)")
        }
    }
}
