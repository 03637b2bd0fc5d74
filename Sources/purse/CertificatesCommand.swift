import ArgumentParser
import Foundation

/// `purse certificates create`: a server certificate for development, signed by the data
/// folder's development certificate authority, so phones on the developer's network reach
/// `purse serve --tls-certificate ... --tls-key ...` over https (docs/mobile.md).
struct CertificatesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "certificates",
        abstract: "Make development TLS certificates.",
        subcommands: [Create.self]
    )

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Issue a server certificate for development, signed by the data folder's development CA (made on first use).",
            discussion: """
                Install the CA certificate it prints on the devices that should trust Purse (docs/mobile.md), \
                then start `purse serve` with the certificate and key it wrote. Name every host the devices \
                use to reach Purse: the machine's LAN address or name, and for stock stripe-android \
                `api.stripe.com` (a debug build that resolves it to Purse).
                """
        )

        @Option(
            name: .customLong("host"),
            help: "A name or IP address the certificate is for; repeat for more (default: localhost, 127.0.0.1 and ::1)."
        )
        var hosts: [String] = []

        @Option(
            name: .customLong("data-dir"),
            help: "Data folder holding the development CA in tls/ (env PURSE_DATA_DIR; default .purse in the current folder)."
        )
        var dataDirectory: String?

        @Option(name: .customLong("out"), help: "Folder for server.pem and server-key.pem (default <data-dir>/tls).")
        var output: String?

        @Flag(help: "Print one JSON object {certificate, key, ca_certificate, ca_created, hosts, expires} and nothing else.")
        var json = false

        func run() throws {
            let names = hosts.isEmpty ? ["localhost", "127.0.0.1", "::1"] : hosts
            var parsed: [CertificateHost] = []
            for name in names {
                guard let host = CertificateHost(name) else {
                    throw ValidationError("'\(name)' is neither a host name nor an IP address.")
                }
                if !parsed.contains(host) { parsed.append(host) }
            }
            let tls = PurseConfiguration.readDataDirectory(dataDirectory).appendingPathComponent("tls")
            let folder = output.map { URL(fileURLWithPath: $0).standardizedFileURL } ?? tls
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)

            let (authority, created) = try DevelopmentCertificateAuthority.openOrCreate(in: tls)
            let issued = try authority.issueServerCertificate(for: parsed)
            let certificateFile = folder.appendingPathComponent("server.pem")
            let keyFile = folder.appendingPathComponent("server-key.pem")
            // The chain a client needs: the server's certificate, then the authority's.
            let chain = try issued.certificate.serializeAsPEM().pemString + "\n" + authority.certificate.serializeAsPEM().pemString + "\n"
            try Data(chain.utf8).write(to: certificateFile, options: .atomic)
            try? FileManager.default.removeItem(at: keyFile)
            _ = try PrivateFile.create(issued.privateKey.pemRepresentation + "\n", at: keyFile)
            let caFile = tls.appendingPathComponent(DevelopmentCertificateAuthority.certificateFileName)
            let expires = ISO8601DateFormatter().string(from: issued.certificate.notValidAfter)

            if json {
                Output.json([
                    "certificate": certificateFile.path, "key": keyFile.path, "ca_certificate": caFile.path, "ca_created": created,
                    "hosts": parsed.map(\.text), "expires": expires,
                ])
                return
            }
            print(
                """
                Server certificate for \(parsed.map(\.text).joined(separator: ", ")), valid until \(expires):
                  certificate (with the CA): \(certificateFile.path)
                  key:                       \(keyFile.path)
                Development CA\(created ? " (new)" : ""): \(caFile.path)
                  Install it on the devices that should trust Purse (docs/mobile.md); its key stays in \(tls.path).
                Serve with:
                  purse serve --host 0.0.0.0 --tls-certificate \(certificateFile.path) --tls-key \(keyFile.path)
                """)
        }
    }
}
