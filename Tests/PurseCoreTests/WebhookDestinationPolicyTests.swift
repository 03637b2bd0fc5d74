import PurseCore
import TestSupport
import Testing

/// The destination rules on their own: no database, no network (a scripted resolver).
@Suite("Webhook destination policy")
struct WebhookDestinationPolicyTests {
    static let strict = WebhookDestinationPolicy(requireHTTPS: true)

    @Test(arguments: [
        // IPv4, with the edges of each block.
        ("0.0.0.0", AddressScope.unspecified), ("0.255.255.255", .unspecified),
        ("10.0.0.0", .private), ("10.255.255.255", .private), ("11.0.0.1", .global), ("9.255.255.255", .global),
        ("100.63.255.255", .global), ("100.64.0.0", .sharedAddressSpace), ("100.127.255.255", .sharedAddressSpace),
        ("100.128.0.0", .global),
        ("127.0.0.1", .loopback), ("127.255.255.254", .loopback),
        ("169.254.169.254", .linkLocal), ("169.253.255.255", .global),
        ("172.15.255.255", .global), ("172.16.0.1", .private), ("172.31.255.255", .private), ("172.32.0.0", .global),
        ("192.0.0.8", .reserved), ("192.0.2.1", .reserved), ("192.88.99.1", .reserved),
        ("192.168.0.1", .private), ("192.169.0.1", .global),
        ("198.18.0.1", .reserved), ("198.19.255.255", .reserved), ("198.20.0.0", .global), ("198.51.100.7", .reserved),
        ("203.0.113.9", .reserved),
        ("224.0.0.1", .multicast), ("239.255.255.250", .multicast), ("240.0.0.1", .reserved), ("255.255.255.255", .reserved),
        ("8.8.8.8", .global), ("93.184.215.14", .global), ("223.255.255.255", .global),
        // IPv6, and IPv4 inside it: mapped, NAT64, 6to4.
        ("::", .unspecified), ("::1", .loopback), ("0:0:0:0:0:0:0:1", .loopback),
        ("::ffff:127.0.0.1", .loopback), ("::ffff:7f00:1", .loopback), ("::ffff:10.0.0.1", .private),
        ("::ffff:0.0.0.0", .unspecified), ("::ffff:169.254.169.254", .linkLocal), ("::ffff:8.8.8.8", .global),
        ("64:ff9b::7f00:1", .loopback), ("64:ff9b::a9fe:a9fe", .linkLocal), ("64:ff9b::808:808", .global),
        ("64:ff9b:1::1", .reserved),
        ("2002:7f00:1::1", .loopback), ("2002:c0a8:101::1", .private), ("2002:808:808::1", .global),
        ("::127.0.0.1", .reserved), ("::2", .reserved), ("100::1", .reserved),
        ("fe80::1", .linkLocal), ("febf:ffff::1", .linkLocal), ("fec0::1", .reserved),
        ("fc00::1", .uniqueLocal), ("fd12:3456::1", .uniqueLocal), ("ff02::1", .multicast), ("ff0e::1", .multicast),
        ("2001::1", .reserved), ("2001:db8::1", .reserved), ("3fff::1", .reserved), ("4000::1", .reserved),
        ("2606:4700:4700::1111", .global), ("2a00:1450:4001:81c::200e", .global),
    ])
    func addressScopes(_ text: String, _ scope: AddressScope) throws {
        let address = try #require(IPAddress(text))
        #expect(address.scope == scope, "\(text)")
        #expect(Self.strict.permits(address, for: try #require(WebhookTarget("https://hooks.example.com/"))) == (scope == .global))
    }

    @Test func addressesReadOnlyStandardText() {
        for text in ["2130706433", "0x7f000001", "0177.0.0.1", "127.1", "127.0.0.1.", "[::1]", "fe80::1%eth0", "1.2.3.4/8", ""] {
            #expect(IPAddress(text) == nil, "\(text)")
        }
        #expect(IPAddress("::FFFF:7F00:1")?.description == "::ffff:127.0.0.1")
        #expect(IPAddress("127.0.0.1")?.bytes == [127, 0, 0, 1])
    }

    @Test(arguments: [
        "localhost", "LOCALHOST", "localhost.", "a.localhost", "a.b.localhost.", "printer.local", "printer.local.",
        "metadata.google.internal", "db.internal.", "router.home.arpa", "home.arpa", "home.arpa.", "example.test", "test",
        "test.", "x.invalid", "invalid", "invalid.", "hidden.onion", "name.alt",
    ])
    func specialUseNamesAreRefused(_ name: String) {
        #expect(WebhookDestinationPolicy.isSpecialUseName(name))
        #expect(Self.strict.target("https://\(name)/hook") == .failure(.notPublic), "\(name)")
        #expect(WebhookDestinationPolicy().target("http://\(name)/hook").map(\.host) == .success(name.lowercased()), "allowed by default")
    }

    @Test(arguments: ["hooks.example.com", "localhost.example.com", "local.example", "internal.example.com", "arpa.example", "home.arpa.example"])
    func ordinaryNamesAreNotSpecial(_ name: String) {
        #expect(!WebhookDestinationPolicy.isSpecialUseName(name))
        #expect(Self.strict.target("https://\(name)/").map(\.host) == .success(name))
    }

    @Test func theHTTPSModeRefusesHTTPAndSingleLabels() {
        #expect(Self.strict.target("http://hooks.example.com/") == .failure(.httpsRequired))
        #expect(Self.strict.target("https://intranet/") == .failure(.notPublic))
        #expect(Self.strict.target("https://intranet./") == .failure(.notPublic))
        // Numeric spellings are one label too: their address decides, once resolved.
        for host in ["2130706433", "0x7f000001", "017700000001", "0x7f.0.0.1", "127.1", "[::]", "[0:0:0:0:0:0:0:1]"] {
            #expect((try? Self.strict.target("https://\(host)/").get()) != nil, "\(host)")
        }
        let allowed = WebhookDestinationPolicy(requireHTTPS: true, allowList: WebhookAllowList(names: ["intranet", "LocalHost."]))
        #expect(allowed.target("https://intranet/").map(\.host) == .success("intranet"))
        #expect(allowed.target("https://localhost:8443/").map(\.port) == .success(8443))
        #expect(allowed.target("https://localhost./").map(\.host) == .success("localhost."))
        #expect(allowed.target("http://localhost/") == .failure(.httpsRequired), "the allow-list does not exempt from https")
    }

    @Test func aURLIsReadOnceIntoWhatDeliveryUses() throws {
        let named = try #require(WebhookTarget("https://Hooks.Example.com:8443/stripe/events?tenant=7#ignored"))
        #expect(named.isHTTPS && named.host == "hooks.example.com" && named.port == 8443 && !named.isIPv6Literal)
        #expect(named.authority == "Hooks.Example.com:8443")
        #expect(named.requestTarget == "/stripe/events?tenant=7")
        #expect(named.authorization == nil)

        let bare = try #require(WebhookTarget("http://hooks.example.com."))
        #expect(bare.port == 80 && bare.authority == "hooks.example.com." && bare.requestTarget == "/")
        #expect(bare.serverName == "hooks.example.com")

        let literal = try #require(WebhookTarget("https://[::FFFF:127.0.0.1]:9443/x"))
        #expect(literal.isIPv6Literal && literal.host == "::ffff:127.0.0.1" && literal.authority == "[::FFFF:127.0.0.1]:9443")

        let credentials = try #require(WebhookTarget("https://merchant:s%40cret@hooks.example.com/"))
        #expect(credentials.authorization == "Basic bWVyY2hhbnQ6c0BjcmV0", "merchant:s@cret")

        for text in [
            "ftp://hooks.example.com/", "https://", "https:///path", "/relative", "not a url", "https://b\u{FC}cher.example/",
            "https://%6cocalhost/", "https://a..b/", "https://[fe80::1%25eth0]/", "https://[127.0.0.1]/", "https://host:0/",
            "https://-/" + String(repeating: "a", count: 2048), "https://" + String(repeating: "a", count: 64) + ".example/",
        ] {
            #expect(WebhookTarget(text) == nil, "\(text)")
        }
    }

    @Test func absoluteLookupsInTheHTTPSMode() throws {
        let target = try #require(WebhookTarget("https://hooks.example.com/"))
        #expect(Self.strict.lookupName(for: target) == "hooks.example.com.", "no search domain, no /etc/hosts alias")
        #expect(WebhookDestinationPolicy().lookupName(for: target) == "hooks.example.com")
        let allowed = WebhookDestinationPolicy(requireHTTPS: true, allowList: WebhookAllowList(names: ["hooks.example.com"]))
        #expect(allowed.lookupName(for: target) == "hooks.example.com", "an allowed name is looked up as the operator wrote it")
        #expect(Self.strict.lookupName(for: try #require(WebhookTarget("https://[::1]/"))) == "::1")
        #expect(Self.strict.lookupName(for: try #require(WebhookTarget("https://hooks.example.com./"))) == "hooks.example.com.")
    }

    @Test func theAllowListExemptsNamesAndBlocks() throws {
        let list = try WebhookAllowList(parsing: " localhost, Hooks.Internal. ,10.0.0.0/8,[::1], fd00::/8,,192.168.1.5")
        #expect(list.names == ["localhost", "hooks.internal"])
        #expect(list.networks.map(\.description) == ["10.0.0.0/8", "::1/128", "fd00::/8", "192.168.1.5/32"])
        let policy = WebhookDestinationPolicy(requireHTTPS: true, allowList: list)
        let elsewhere = try #require(WebhookTarget("https://hooks.example.com/"))
        let address = { (text: String) in IPAddress(text)! }
        #expect(policy.permits(address("10.20.30.40"), for: elsewhere))
        #expect(policy.permits(address("::ffff:10.20.30.40"), for: elsewhere), "the mapped form of an allowed address")
        #expect(policy.permits(address("::1"), for: elsewhere))
        #expect(policy.permits(address("fd00::9"), for: elsewhere))
        #expect(policy.permits(address("192.168.1.5"), for: elsewhere))
        #expect(!policy.permits(address("192.168.1.6"), for: elsewhere))
        #expect(!policy.permits(address("127.0.0.1"), for: elsewhere))
        // An allowed name may lead anywhere.
        let named = try #require(WebhookTarget("https://hooks.internal/"))
        #expect(policy.permits(address("172.16.0.1"), for: named))
        #expect(policy.target("https://hooks.internal./").map(\.host) == .success("hooks.internal."))

        for entry in ["10.0.0.0/33", "*.example.com", "https://x", "a b", "10.0.0.1/x", "10.0.0.0/+8", "fe80::1%eth0", "a..b"] {
            #expect(throws: WebhookAllowList.InvalidEntry(entry: entry), "\(entry)") { try WebhookAllowList(parsing: "ok.example,\(entry)") }
        }
        #expect(try WebhookAllowList(parsing: " , ").isEmpty)
    }

    @Test func networksContainWhatTheirPrefixCovers() throws {
        let block = try #require(IPNetwork("100.64.7.9/10"))
        #expect(block.description == "100.64.0.0/10")
        #expect(block.contains(IPAddress("100.127.255.255")!) && !block.contains(IPAddress("100.128.0.0")!))
        #expect(!block.contains(IPAddress("::ffff:100.64.0.1")!), "families do not mix")
        #expect(try #require(IPNetwork("0.0.0.0/0")).contains(IPAddress("203.0.113.1")!))
        #expect(try #require(IPNetwork("2001:db8::/127")).contains(IPAddress("2001:db8::1")!))
        #expect(!(try #require(IPNetwork("2001:db8::/128")).contains(IPAddress("2001:db8::1")!)))
    }

    // MARK: - With a resolver

    @Test func registrationRefusesWhatResolvesNowAndAcceptsWhatDoesNot() async throws {
        let resolver = ScriptedResolver([
            "loopback.example.com": [.addresses(["127.0.0.1"])],
            "mixed.example.com": [.addresses(["93.184.215.14", "10.0.0.7"])],
            "public.example.com": [.addresses(["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"])],
            "slow.example.com": [.hang],
        ])
        let destinations = WebhookDestinations(policy: Self.strict, resolver: resolver, registrationLookupLimit: .milliseconds(200))
        await #expect(throws: WebhookDestinationPolicy.Refusal.notPublic) {
            try await destinations.checkRegistration("https://loopback.example.com/")
        }
        await #expect(throws: WebhookDestinationPolicy.Refusal.notPublic, "one refused address is enough") {
            try await destinations.checkRegistration("https://mixed.example.com/")
        }
        try await destinations.checkRegistration("https://public.example.com/")
        try await destinations.checkRegistration("https://unknown.example.com/")
        try await destinations.checkRegistration("https://slow.example.com/")
        #expect(resolver.abandoned == ["slow.example.com."], "a lookup that never answers is given up on")
        #expect(
            resolver.asked == ["loopback.example.com.", "mixed.example.com.", "public.example.com.", "unknown.example.com.", "slow.example.com."])

        // By default nothing is looked up at registration.
        let open = WebhookDestinations(policy: WebhookDestinationPolicy(), resolver: resolver)
        try await open.checkRegistration("http://loopback.example.com/")
        #expect(resolver.asked.count == 5)
    }

    /// A literal address is judged without a lookup, so a lookup limit that runs out (a loaded
    /// resolver pool once took over 2 s) cannot accept `https://127.0.0.1/`.
    @Test func registrationJudgesALiteralAddressWithoutALookup() async throws {
        let resolver = ScriptedResolver(["127.0.0.1": [.hang], "169.254.169.254": [.hang], "93.184.215.14": [.hang]])
        let destinations = WebhookDestinations(policy: Self.strict, resolver: resolver, registrationLookupLimit: .zero)
        for url in ["https://127.0.0.1/hook", "https://169.254.169.254/latest"] {
            await #expect(throws: WebhookDestinationPolicy.Refusal.notPublic, "\(url)") {
                try await destinations.checkRegistration(url)
            }
        }
        try await destinations.checkRegistration("https://93.184.215.14/hook")
        #expect(resolver.asked.isEmpty)
    }

    @Test func deliveryResolvesEveryTimeAndRefusesARebind() async throws {
        let resolver = ScriptedResolver(["rebind.example.com": [.addresses(["93.184.215.14"]), .addresses(["127.0.0.1"])]])
        let destinations = WebhookDestinations(policy: Self.strict, resolver: resolver)
        try await destinations.checkRegistration("https://rebind.example.com/hook")
        #expect(await destinations.resolveForDelivery("https://rebind.example.com/hook") == .failure(.destinationNotAllowed))
        #expect(resolver.asked == ["rebind.example.com.", "rebind.example.com."])

        let changing = ScriptedResolver(["hooks.example.com": [.addresses(["93.184.215.14"]), .addresses(["8.8.8.8", "2001:4860:4860::8888"])]])
        let checked = WebhookDestinations(policy: Self.strict, resolver: changing)
        #expect(try await checked.resolveForDelivery("https://hooks.example.com/").get().addresses == [IPAddress("93.184.215.14")!])
        #expect(
            try await checked.resolveForDelivery("https://hooks.example.com/").get().addresses
                == [IPAddress("8.8.8.8")!, IPAddress("2001:4860:4860::8888")!]
        )
        #expect(await checked.resolveForDelivery("https://nowhere.example.com/") == .failure(.dnsFailure))
        #expect(await checked.resolveForDelivery("http://hooks.example.com/") == .failure(.destinationNotAllowed))
        #expect(await checked.resolveForDelivery("https://localhost/") == .failure(.destinationNotAllowed))
        #expect(changing.asked.count == 3, "a refused name is not looked up")
    }
}
