import Crypto
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import Locking
import Logging
import Synchronization
import ZeroMQ

/// The key an edge (or a relay, for its own acknowledgements) shares with campaignd alone, and the seal it makes
/// with it: HMAC-SHA256 of a record's ``SealedFields``. The key is derived with HKDF-SHA256 (no salt, the info
/// ``label``) from the X25519 secret of the edge's CURVE key pair and campaignd's CURVE public key, which campaignd
/// finds again from its own secret key and the edge's public key in `edges/EDGE_ID.pub`. A relay between them holds
/// neither secret: it can pass a sealed record on, not make one nor change a field of it.
public struct RecordSeal: Sendable {
    /// The derived key's bytes (`SymmetricKey` is not `Sendable`; one is made of them for each seal).
    private let keyBytes: [UInt8]
    private var key: SymmetricKey { SymmetricKey(data: keyBytes) }
    /// HKDF's info: names what the key is for, so that the same key pair used elsewhere gives another key.
    static let label = "launchad edge record seal v1"

    /// The key of the secret key `secretKey` (Z85) with the peer's public key `publicKey` (Z85).
    public init(secretKey: String, publicKey: String) throws {
        guard let secret = CurveKey.decode(secretKey) else { throw RuntimeError.keys("the secret key is not a CURVE key") }
        guard let peer = CurveKey.decode(publicKey) else { throw RuntimeError.keys("\(publicKey) is not a CURVE public key") }
        do {
            let shared = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: secret)
                .sharedSecretFromKeyAgreement(with: Curve25519.KeyAgreement.PublicKey(rawRepresentation: peer))
            keyBytes = shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: [UInt8](), sharedInfo: Array(Self.label.utf8),
                                                      outputByteCount: 32).withUnsafeBytes { Array($0) }
        } catch {
            throw RuntimeError.keys("no key can be agreed with the public key \(publicKey): \(error)")
        }
    }

    /// The seal of `fields`: 64 lowercase hex characters.
    public func mac(_ fields: SealedFields) -> String {
        Self.hex(HMAC<SHA256>.authenticationCode(for: fields.bytes, using: key))
    }

    /// Whether `mac` is the seal of `fields` (compared in constant time).
    public func verifies(_ fields: SealedFields, mac: String) -> Bool {
        guard let code = Self.bytes(hex: mac) else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(code, authenticating: fields.bytes, using: key)
    }

    private static func hex(_ code: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in code { text += [digits[Int(byte >> 4)], digits[Int(byte & 0xF)]] }
        return String(decoding: text, as: UTF8.self)
    }

    /// The 32 bytes of 64 lowercase hex characters; `nil` for anything else.
    private static func bytes(hex: String) -> [UInt8]? {
        let text = Array(hex.utf8)
        guard text.count == 64 else { return nil }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for index in stride(from: 0, to: 64, by: 2) {
            guard let high = nibble(text[index]), let low = nibble(text[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }
}

/// Seals what an edge (or a relay, for itself) sends campaignd: each acknowledgement with the edge's time of sending,
/// later than the one before it even when the clock stands still or steps back a little, and each report.
public final class RecordSealer: Sendable {
    private let seal: RecordSeal
    private let lastSentAt = Atomic<Int64>(0)

    public init(seal: RecordSeal) {
        self.seal = seal
    }

    /// The seal of the key pair `keyPair` with campaignd's public key `origin`.
    public convenience init(keyPair: CurveKeyPair, origin: String) throws {
        self.init(seal: try RecordSeal(secretKey: keyPair.secretKey, publicKey: origin))
    }

    /// `ack` with its time of sending (`now`, or 1 ms after the last one sealed) and its seal.
    public func sealed(_ ack: EdgeAck, now: Timestamp = .now()) -> EdgeAck {
        var sealed = ack
        var last = lastSentAt.load(ordering: .relaxed)
        while true {
            let next = max(now.milliseconds, last + 1)
            let (exchanged, original) = lastSentAt.compareExchange(expected: last, desired: next, ordering: .relaxed)
            if exchanged { sealed.sentAt = next; break }
            last = original
        }
        sealed.mac = seal.mac(sealed.sealedFields)
        return sealed
    }

    /// `report` with its seal (its report id is what makes it once-only).
    public func sealed(_ report: EdgeReport) -> EdgeReport {
        var sealed = report
        sealed.mac = seal.mac(report.sealedFields)
        return sealed
    }
}

/// campaignd's side: the seal of each edge and relay it lists, and the last time of sending it took from each. With
/// CURVE, an acknowledgement or a report is taken only with its edge's seal, whatever key brought it (the edge's own,
/// or a relay's); an acknowledgement also only when it is newer than the last taken from that edge and within
/// ``maxClockDistance`` of campaignd's clock, so that a relay cannot hold acknowledgements back and play them later to
/// make a frozen edge look alive.
public final class RecordSeals: Sendable {
    private let seals: [String: [RecordSeal]]
    private let lastSentAt = Locked<[String: Int64]>([:])
    private let logger: Logger
    /// The refusals logged so far (method, edge id and field): a relay passing a stale acknowledgement on each second logs
    /// once.
    private let logged = RefusalLog()
    /// How far an acknowledgement's `sentAt` may be from campaignd's clock. Hosts kept by NTP are milliseconds apart and
    /// a relay passes acknowledgements on within 10 ms; 30 s leaves room for a clock that drifted and for a relay's
    /// retries across a short outage, while a frozen edge cannot look alive longer than that from what it sealed
    /// before it froze.
    public static let maxClockDistance: Int64 = 30_000

    /// `ownSecretKey` is campaignd's secret key; `edgeKeys` and `relayKeys` the ids the keys of `edges/` and `relays/`
    /// speak for, as ``KeysDirectory/edgeKeys()`` and ``KeysDirectory/relayKeys()`` give them (a relay seals its own
    /// acknowledgements with its relay key).
    public init(ownSecretKey: String, edgeKeys: [String: String], relayKeys: [String: String], logger: Logger) throws {
        var seals: [String: [RecordSeal]] = [:]
        for (key, id) in Array(edgeKeys) + Array(relayKeys) {
            seals[id, default: []].append(try RecordSeal(secretKey: ownSecretKey, publicKey: key))
        }
        self.seals = seals
        self.logger = logger
    }

    /// Throws ``APIError/sealRefused`` unless `ack` carries its edge's seal and is newer than the last taken from it
    /// and near `now`; then it counts as taken.
    public func take(_ ack: EdgeAck, now: Timestamp, method: String) throws {
        // The seal and the clock are checked outside the lock: only the last time taken is shared.
        if let reason = unsealed(ack.edgeId, fields: ack.sealedFields, mac: ack.mac) { throw refused(ack.edgeId, field: "mac", reason, method: method) }
        guard let sentAt = ack.sentAt else {
            throw refused(ack.edgeId, field: "sentAt", "is missing: a sealed acknowledgement carries the edge's time of sending", method: method)
        }
        // Compared without subtracting from sentAt, which is the sender's number (any Int64): no overflow.
        let clock = now.milliseconds
        guard sentAt >= clock - Self.maxClockDistance && sentAt <= clock + Self.maxClockDistance else {
            throw refused(ack.edgeId, field: "sentAt", "is \(sentAt), more than \(Self.maxClockDistance) ms from campaignd's clock (\(clock)): stale, or the edge's clock is off",
                          method: method)
        }
        let previous: Int64? = lastSentAt.withLock { last in
            if let previous = last[ack.edgeId], sentAt <= previous { return previous }
            last[ack.edgeId] = sentAt
            return nil
        }
        if let previous {
            throw refused(ack.edgeId, field: "sentAt", "is not newer than the last acknowledgement taken from this edge (\(previous)): a replay",
                          method: method)
        }
    }

    /// The acknowledgements of `acks` that ``take(_:now:method:)`` takes, and the edge ids of those it refuses: a relay's
    /// batch is taken but for the acknowledgements that fail, so that one stale or forged record holds none of the
    /// others back.
    public func take(_ acks: [EdgeAck], now: Timestamp, method: String) -> (taken: [EdgeAck], refused: [String]) {
        var taken: [EdgeAck] = [], refused: [String] = []
        for ack in acks {
            if (try? take(ack, now: now, method: method)) != nil { taken.append(ack) } else { refused.append(ack.edgeId) }
        }
        return (taken, refused)
    }

    /// Throws ``APIError/sealRefused`` unless `report` carries its edge's seal.
    public func check(_ report: EdgeReport, method: String) throws {
        if let reason = unsealed(report.edgeId, fields: report.sealedFields, mac: report.mac) {
            throw refused(report.edgeId, field: "mac", reason, method: method)
        }
    }

    /// Why `mac` is not the seal of `fields` by the edge `edgeId`; `nil` when it is.
    private func unsealed(_ edgeId: String, fields: SealedFields, mac: String?) -> String? {
        guard let seals = seals[edgeId] else {
            return "campaignd lists no key for \(edgeId) (edges/\(edgeId).pub), so it cannot take its word: every edge's key, also behind relays, must be in its keys folder"
        }
        guard let mac else { return "is missing: campaignd takes only what edge \(edgeId) sealed with its own key" }
        guard seals.contains(where: { $0.verifies(fields, mac: mac) }) else {
            return "is not edge \(edgeId)'s seal of these fields: altered on the way, or not made by its key"
        }
        return nil
    }

    private func refused(_ edgeId: String, field: String, _ reason: String, method: String) -> JSONRPCError {
        let first = logged.isFirst(method + " " + edgeId + " " + field)
        if first {
            logger.warning("refused an acknowledgement or report not sealed by its edge", metadata: [
                "method": "\(method)", LogField.edgeId: "\(edgeId)", "field": "\(field)", "reason": "\(reason)",
            ])
        }
        return JSONRPCError(code: APIError.sealRefused.code, message: "\(field): \(reason)",
                            data: ["field": .string(field), "reason": .string(reason)])
    }
}
