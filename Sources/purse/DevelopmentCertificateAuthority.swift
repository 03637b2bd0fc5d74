import Crypto
import Foundation
import SwiftASN1
import X509

/// A certificate authority for development, kept in the data folder, that issues the server
/// certificates a developer's phone trusts once the authority is installed on it (iOS's App
/// Transport Security and Android's cleartext rules refuse plain http off the device).
///
/// Its key never leaves the data folder (`tls/purse-development-ca-key.pem`, mode 0600); its
/// certificate (`tls/purse-development-ca.crt`) is what goes on the devices. It is for
/// development only: production serves a certificate from a real authority.
struct DevelopmentCertificateAuthority {
    let certificate: Certificate
    private let privateKey: P256.Signing.PrivateKey

    static let certificateFileName = "purse-development-ca.crt"
    static let keyFileName = "purse-development-ca-key.pem"

    /// How long issued server certificates last: within Apple's limit of 398 days for TLS server
    /// certificates, which iOS also applies to certificates of authorities a user installed.
    static let serverCertificateLifetime: TimeInterval = 397 * 86_400
    static let authorityLifetime: TimeInterval = 5 * 365 * 86_400

    /// The authority kept in `folder`, made there first if there is none.
    static func openOrCreate(in folder: URL, now: Date = Date()) throws -> (authority: DevelopmentCertificateAuthority, created: Bool) {
        let certificateFile = folder.appendingPathComponent(certificateFileName)
        let keyFile = folder.appendingPathComponent(keyFileName)
        if FileManager.default.fileExists(atPath: keyFile.path) {
            do {
                let certificate = try Certificate(pemEncoded: try String(contentsOf: certificateFile, encoding: .utf8))
                let key = try P256.Signing.PrivateKey(pemRepresentation: try String(contentsOf: keyFile, encoding: .utf8))
                return (DevelopmentCertificateAuthority(certificate: certificate, privateKey: key), false)
            } catch {
                throw CommandError("The development certificate authority in \(folder.path) cannot be read: \(error)")
            }
        }
        let key = P256.Signing.PrivateKey()
        let signingKey = Certificate.PrivateKey(key)
        let name = try DistinguishedName {
            OrganizationName("Purse development")
            CommonName("Purse development CA (\(ProcessInfo.processInfo.hostName), \(Self.day(now)))")
        }
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: signingKey.publicKey,
            notValidBefore: now.addingTimeInterval(-300),
            notValidAfter: now.addingTimeInterval(authorityLifetime),
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: signingKey.publicKey)
            },
            issuerPrivateKey: signingKey
        )
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try? FileManager.default.removeItem(at: keyFile)
        _ = try PrivateFile.create(key.pemRepresentation, at: keyFile)
        try Data(try certificate.serializeAsPEM().pemString.utf8).write(to: certificateFile, options: .atomic)
        return (DevelopmentCertificateAuthority(certificate: certificate, privateKey: key), true)
    }

    /// A server certificate for `hosts` (names and IP addresses), signed by this authority, with
    /// its new key.
    func issueServerCertificate(for hosts: [CertificateHost], now: Date = Date()) throws -> IssuedCertificate {
        precondition(!hosts.isEmpty, "a server certificate names at least one host")
        let key = P256.Signing.PrivateKey()
        let publicKey = Certificate.PrivateKey(key).publicKey
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: publicKey,
            notValidBefore: now.addingTimeInterval(-300),
            notValidAfter: now.addingTimeInterval(Self.serverCertificateLifetime),
            issuer: self.certificate.subject,
            subject: try DistinguishedName {
                OrganizationName("Purse development")
                CommonName(hosts[0].text)
            },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(hosts.map(\.generalName))
                SubjectKeyIdentifier(hash: publicKey)
                AuthorityKeyIdentifier(keyIdentifier: try self.certificate.extensions.subjectKeyIdentifier?.keyIdentifier)
            },
            issuerPrivateKey: Certificate.PrivateKey(privateKey)
        )
        return IssuedCertificate(certificate: certificate, privateKey: key)
    }

    /// A server certificate and the key it certifies.
    struct IssuedCertificate {
        let certificate: Certificate
        let privateKey: P256.Signing.PrivateKey
    }

    private static func day(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return formatter.string(from: date)
    }
}

/// A name or address a server certificate is valid for.
struct CertificateHost: Equatable, CustomStringConvertible {
    enum Kind: Equatable {
        case dnsName
        case ipAddress([UInt8])
    }

    let text: String
    let kind: Kind

    /// `localhost`, `purse.local`, `api.stripe.com`, `192.168.1.20`, `::1`; nil for anything else.
    init?(_ text: String) {
        let trimmed = text.hasPrefix("[") && text.hasSuffix("]") ? String(text.dropFirst().dropLast()) : text
        if let address = Self.addressBytes(trimmed) {
            self.text = trimmed
            self.kind = .ipAddress(address)
            return
        }
        let name = trimmed.lowercased()
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        guard !name.isEmpty, name.count <= 253,
            labels.enumerated().allSatisfy({ index, label in
                // A wildcard only as the whole first label (`*.example.com`).
                (index == 0 && label == "*" && labels.count > 2)
                    || (!label.isEmpty && label.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                        && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
            })
        else { return nil }
        self.text = name
        self.kind = .dnsName
    }

    var description: String { text }

    var generalName: GeneralName {
        switch kind {
        case .dnsName: .dnsName(text)
        case .ipAddress(let bytes): .ipAddress(ASN1OctetString(contentBytes: bytes[...]))
        }
    }

    private static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }
}
