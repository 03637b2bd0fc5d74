import PurseCore
import Testing

/// Derived secrets are computed again at each use and checked against hashes stored when they
/// were first handed out (a customer session's key), or shown to users who keep them (a webhook
/// signing secret, a card's fingerprint): the same master key must give the same values in
/// every version of Purse. These were written by the version that first derived them.
@Suite("Derived secrets")
struct DerivedSecretsTests {
    @Test func theSameMasterKeyGivesTheSameSecretsInEveryVersion() throws {
        let masterKey = try MasterKey(bytes: Array(0..<32))
        let secrets = DerivedSecrets(masterKey: masterKey)
        #expect(secrets.setupIntentClientSecret("seti_1") == "seti_1_secret_sdfoEEs1vRNCZmNAv5ZIzVhL")
        #expect(secrets.authenticationToken(setupIntent: "seti_1", attempt: 2) == "rthmCTEWTko56KttYC6DaBZC")
        #expect(secrets.customerSessionAPIKey("cuss_1") == "ek_test_vsGBm2JvTqa4sHWmOFnldiw6B4KgiOxAcMbhcyvosgGtkecL")
        #expect(secrets.webhookSigningSecret("we_1") == "whsec_Ze3coaMRfwu5N7Bmz3nDDew3H0g3Z83D")
        let card = try #require(CardNumber("4242424242424242"))
        #expect(Fingerprinter(masterKey: masterKey).fingerprint(of: card, account: "acct_1") == "QJSmA666UqOYf7uW")
    }

    @Test func anotherMasterKeyGivesOtherSecrets() throws {
        let one = DerivedSecrets(masterKey: try MasterKey(bytes: Array(0..<32)))
        let other = DerivedSecrets(masterKey: try MasterKey(bytes: Array(1...32)))
        #expect(other.customerSessionAPIKey("cuss_1") != one.customerSessionAPIKey("cuss_1"))
    }
}
