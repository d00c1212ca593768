import Foundation

/// Makes a self-signed P-256 certificate for a day and its key with the openssl CLI, at `certificate` and `key`, for
/// `CN=commonName`; with `loopback`, valid for `localhost` and `127.0.0.1` too. What openssl did, for the caller to check.
public func makeTestCertificate(certificate: String, key: String, commonName: String, loopback: Bool) throws -> SpawnedProcess.Finished {
    try SpawnedProcess.run("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                                       "-keyout", key, "-out", certificate, "-days", "1", "-subj", "/CN=\(commonName)"]
                                      + (loopback ? ["-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"] : []))
}
