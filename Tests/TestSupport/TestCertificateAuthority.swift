import Crypto
import Foundation
public import NIOSSL
import SwiftASN1
import X509

/// A certificate authority made for one test: servers present certificates it issues, and a
/// client that trusts it (and only a client told to) accepts them.
public struct TestCertificateAuthority: Sendable {
    /// The authority's certificate, to give a client as its trust root.
    public let certificate: NIOSSLCertificate
    private let x509: Certificate
    private let key: P256.Signing.PrivateKey

    public init() throws {
        let key = P256.Signing.PrivateKey()
        let signingKey = Certificate.PrivateKey(key)
        let name = try DistinguishedName { CommonName("Purse test CA") }
        let now = Date()
        let x509 = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: signingKey.publicKey,
            notValidBefore: now.addingTimeInterval(-300), notValidAfter: now.addingTimeInterval(86_400),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: signingKey.publicKey)
            },
            issuerPrivateKey: signingKey
        )
        self.x509 = x509
        self.key = key
        self.certificate = try Self.nioCertificate(x509)
    }

    /// A TLS server configuration presenting a certificate this authority issues for `names`
    /// (host names, or IP addresses in standard text).
    public func serverConfiguration(for names: [String]) throws -> TLSConfiguration {
        let key = P256.Signing.PrivateKey()
        let publicKey = Certificate.PrivateKey(key).publicKey
        let now = Date()
        let alternativeNames: [GeneralName] = names.map { name in
            var v4 = in_addr()
            var v6 = in6_addr()
            if inet_pton(AF_INET, name, &v4) == 1 { return .ipAddress(ASN1OctetString(contentBytes: withUnsafeBytes(of: &v4) { ArraySlice($0) })) }
            if inet_pton(AF_INET6, name, &v6) == 1 { return .ipAddress(ASN1OctetString(contentBytes: withUnsafeBytes(of: &v6) { ArraySlice($0) })) }
            return .dnsName(name)
        }
        let leaf = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: publicKey,
            notValidBefore: now.addingTimeInterval(-300), notValidAfter: now.addingTimeInterval(86_400),
            issuer: x509.subject, subject: try DistinguishedName { CommonName(names[0]) }, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(alternativeNames)
            },
            issuerPrivateKey: Certificate.PrivateKey(self.key)
        )
        return TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try Self.nioCertificate(leaf))],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(key.pemRepresentation.utf8), format: .pem))
        )
    }

    private static func nioCertificate(_ certificate: Certificate) throws -> NIOSSLCertificate {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return try NIOSSLCertificate(bytes: serializer.serializedBytes, format: .der)
    }
}
