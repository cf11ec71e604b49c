package import Foundation

/// A certificate authority made at test time with the `openssl` command-line tool: a self-signed CA and the
/// server and client certificates it issues (P-256 keys, valid for two days), as PEM files in a temporary
/// directory. Nothing is committed: every test run makes its own.
package final class TestCertificateAuthority: Sendable {
    /// A certificate and its unencrypted private key.
    package struct Issued: Sendable {
        package var certificate: String
        package var key: String
    }

    package static let opensslPath = MosquittoBroker.locate("openssl")
    package static let installHint = "install with: apt-get install -y openssl"

    package let directory: URL
    /// The CA certificate (PEM): what a client is given as its trust anchor.
    package let certificate: String
    private let key: String

    /// Makes the CA (`name` becomes its common name).
    package init(name: String = "CareBridge Test CA") throws {
        guard Self.opensslPath != nil else {
            throw MosquittoBroker.Failure(description: "openssl not found on PATH; \(Self.installHint)")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("test-ca-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        certificate = directory.appendingPathComponent("ca.pem").path
        key = directory.appendingPathComponent("ca.key").path
        try Self.openssl([
            "req", "-x509", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", key, "-out", certificate, "-days", "2", "-subj", "/CN=\(name)",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ])
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// Issues a server certificate for these DNS names and IP addresses (its subject alternative names).
    package func issueServer(named file: String, dnsNames: [String] = [], ipAddresses: [String] = []) throws -> Issued {
        let names = dnsNames.map { "DNS:\($0)" } + ipAddresses.map { "IP:\($0)" }
        return try issue(
            file,
            commonName: dnsNames.first ?? ipAddresses.first ?? file,
            extensions: [
                "basicConstraints=CA:FALSE", "keyUsage=critical,digitalSignature", "extendedKeyUsage=serverAuth",
            ] + (names.isEmpty ? [] : ["subjectAltName=\(names.joined(separator: ","))"])
        )
    }

    /// Issues a client certificate with this common name.
    package func issueClient(named file: String, commonName: String) throws -> Issued {
        try issue(
            file,
            commonName: commonName,
            extensions: [
                "basicConstraints=CA:FALSE", "keyUsage=critical,digitalSignature", "extendedKeyUsage=clientAuth",
            ]
        )
    }

    private func issue(_ file: String, commonName: String, extensions: [String]) throws -> Issued {
        let issued = Issued(
            certificate: directory.appendingPathComponent("\(file).pem").path,
            key: directory.appendingPathComponent("\(file).key").path
        )
        let request = directory.appendingPathComponent("\(file).csr").path
        let extensionFile = directory.appendingPathComponent("\(file).ext")
        try (extensions.joined(separator: "\n") + "\n").write(to: extensionFile, atomically: true, encoding: .utf8)
        try Self.openssl([
            "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", issued.key, "-out", request, "-subj", "/CN=\(commonName)",
        ])
        try Self.openssl([
            "x509", "-req", "-in", request, "-CA", certificate, "-CAkey", key,
            "-set_serial", "0x\(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16))",
            "-days", "2", "-extfile", extensionFile.path, "-out", issued.certificate,
        ])
        return issued
    }

    private static func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: opensslPath!)
        process.arguments = arguments
        let errors = Pipe.closedOnExec()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw MosquittoBroker.Failure(
                description: "openssl \(arguments.prefix(2).joined(separator: " ")) exited with "
                    + "\(process.terminationStatus): \(String(decoding: message, as: UTF8.self))"
            )
        }
    }
}
