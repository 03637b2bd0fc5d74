import Testing

@testable import PurseCore

/// The secrets root and the master keys that open it (docs/operations.md, "Rotating the master
/// key"), on the in-memory repositories.
@Suite("Master key rotation, in memory")
struct MasterKeyRotationTests {
    @Test func aNewDatabaseGetsARandomRootThatItsKeyOpensAgain() async throws {
        let service = MasterKeyService(database: InMemoryDatabase())
        let key = MasterKey.generate()
        let root = try await service.unlock(with: key)
        #expect(root.hexText != key.hexText, "a database without accounts gets a root of its own")
        #expect(try await service.unlock(with: key).hexText == root.hexText)
        #expect(try await service.acceptedKeys().map(\.keyID) == [MasterKeySeal.keyID(of: key)])
    }

    @Test func aDatabaseWithAccountsKeepsItsMasterKeyAsTheRoot() async throws {
        let database = InMemoryDatabase()
        _ = try await AccountService(database: database).createAccount(name: "Shop")
        let key = MasterKey.generate()
        // What was derived before the seals existed was derived from the master key itself.
        #expect(try await MasterKeyService(database: database).unlock(with: key).hexText == key.hexText)
    }

    @Test func anotherKeyIsRefusedUntilAddedThenBothOpenTheSameRoot() async throws {
        let service = MasterKeyService(database: InMemoryDatabase())
        let (old, new) = (MasterKey.generate(), MasterKey.generate())
        let root = try await service.unlock(with: old)
        await #expect(throws: MasterKeyServiceError.notAccepted(keyID: MasterKeySeal.keyID(of: new), accepted: [MasterKeySeal.keyID(of: old)])) {
            _ = try await service.unlock(with: new)
        }
        #expect(try await service.addKey(new, current: old) == MasterKeySeal.keyID(of: new))
        _ = try await service.addKey(new, current: old)  // again: nothing changes
        #expect(try await service.unlock(with: new).hexText == root.hexText)
        #expect(try await service.unlock(with: old).hexText == root.hexText)
        #expect(Set(try await service.acceptedKeys().map(\.keyID)) == [MasterKeySeal.keyID(of: old), MasterKeySeal.keyID(of: new)])
        // Derived secrets do not change with the key that opened the root.
        let secrets = DerivedSecrets(masterKey: try await service.unlock(with: new))
        #expect(secrets.webhookSigningSecret("we_1") == DerivedSecrets(masterKey: root).webhookSigningSecret("we_1"))

        #expect(try await service.retireOtherKeys(current: new) == [MasterKeySeal.keyID(of: old)])
        await #expect(throws: MasterKeyServiceError.self) { _ = try await service.unlock(with: old) }
        #expect(try await service.unlock(with: new).hexText == root.hexText)
    }

    @Test func onlyAnAcceptedKeyCanAddOrRetire() async throws {
        let service = MasterKeyService(database: InMemoryDatabase())
        let (accepted, stranger) = (MasterKey.generate(), MasterKey.generate())
        _ = try await service.unlock(with: accepted)
        await #expect(throws: MasterKeyServiceError.self) { _ = try await service.addKey(MasterKey.generate(), current: stranger) }
        await #expect(throws: MasterKeyServiceError.self) { _ = try await service.retireOtherKeys(current: stranger) }
        #expect(try await service.acceptedKeys().count == 1)
    }

    @Test func aSealOpensOnlyWithItsKeyAndNamesItWithoutRevealingIt() throws {
        let (root, key) = (MasterKey.generate(), MasterKey.generate())
        let seal = try MasterKeySeal(root: root, under: key, created: 0)
        #expect(try seal.open(with: key).hexText == root.hexText)
        #expect(throws: (any Error).self) { _ = try seal.open(with: MasterKey.generate()) }
        #expect(seal.keyID.count == 16 && seal.keyID.allSatisfy(\.isHexDigit))
        #expect(!key.hexText.contains(seal.keyID))
        var tampered = seal
        tampered.sealedRoot[20] ^= 1
        #expect(throws: (any Error).self) { _ = try tampered.open(with: key) }
    }
}
