import Foundation
import LaunchAdRuntime
import NIOSSL

/// The HTTP address's certificate chain and private key, read from PEM files, with an error naming the file when
/// one is missing, unreadable or not PEM, or when the key is not the certificate's.
enum TLSFiles {
    static func configuration(certificate: String, key: String) throws -> TLSConfiguration {
        guard FileManager.default.isReadableFile(atPath: certificate) else {
            throw RuntimeError.configuration("TLS certificate \(certificate) is missing or unreadable")
        }
        guard FileManager.default.isReadableFile(atPath: key) else {
            throw RuntimeError.configuration("TLS key \(key) is missing or unreadable")
        }
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificate)
        } catch {
            throw RuntimeError.configuration("TLS certificate \(certificate) is not a PEM certificate (\(error))")
        }
        guard !chain.isEmpty else { throw RuntimeError.configuration("TLS certificate \(certificate) holds no certificate") }
        let privateKey: NIOSSLPrivateKey
        do {
            privateKey = try NIOSSLPrivateKey(file: key, format: .pem)
        } catch {
            throw RuntimeError.configuration("TLS key \(key) is not a PEM private key (\(error))")
        }
        let configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) },
                                                                    privateKey: .privateKey(privateKey))
        // Making a context checks that the key is the certificate's.
        do {
            _ = try NIOSSLContext(configuration: configuration)
        } catch {
            throw RuntimeError.configuration("TLS key \(key) does not match the certificate \(certificate) (\(error))")
        }
        return configuration
    }
}
