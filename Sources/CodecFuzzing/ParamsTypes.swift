import JSONRPC
import LaunchAdAPI
import LaunchAdDomain

/// One type that the services decode from the wire, with the invariants of its decoding.
struct DecodedType: Sendable {
    let name: String
    let check: @Sendable (_ bytes: [UInt8], _ parsed: JSONValue?, _ violations: inout [InvariantViolation]) -> Void

    init<T: Codable & SendableMetatype>(_ type: T.Type, then extra: (@Sendable (T, inout [InvariantViolation]) -> Void)? = nil) {
        let name = String(describing: T.self)
        self.name = name
        check = { bytes, parsed, violations in
            let decoder = JSONValueDecoder()
            let fromBytes = Result<T, any Error>(catching: { try decoder.decode(T.self, fromJSON: bytes) })
            guard let parsed else {
                if case .success = fromBytes {
                    violations.append(.init("no decoding accepts what the strict parser refuses", name))
                }
                return
            }
            let fromValue = Result<T, any Error>(catching: { try decoder.decode(T.self, from: parsed) })
            switch (fromBytes, fromValue) {
            case (.success(let value), .success(let other)):
                let encoded: JSONValue
                do {
                    encoded = try JSONValueEncoder().encode(value)
                    let otherEncoded = try JSONValueEncoder().encode(other)
                    if encoded != otherEncoded {
                        violations.append(.init("\(name) decodes the same from bytes and from the parsed value",
                                                "\(encoded.jsonText) vs \(otherEncoded.jsonText)"))
                    }
                } catch {
                    violations.append(.init("\(name) that decoded encodes", "\(error)"))
                    return
                }
                do {
                    let again = try JSONValueEncoder().encode(try decoder.decode(T.self, from: encoded))
                    if again != encoded {
                        violations.append(.init("\(name) round-trips", "\(encoded.jsonText) became \(again.jsonText)"))
                    }
                } catch {
                    violations.append(.init("\(name) decodes what it encoded", "\(error) for \(encoded.jsonText)"))
                }
                extra?(value, &violations)
            case (.failure(let left), .failure(let right)):
                let leftField = (left as? DecodingError)?.fieldPath
                let rightField = (right as? DecodingError)?.fieldPath
                if leftField != rightField {
                    violations.append(.init("\(name) names the same field from bytes and from the parsed value", "\(left) vs \(right)"))
                }
            case (.success, .failure(let error)):
                violations.append(.init("\(name) decodes the same from bytes and from the parsed value", "only the bytes decode; value: \(error)"))
            case (.failure(let error), .success):
                violations.append(.init("\(name) decodes the same from bytes and from the parsed value", "only the value decodes; bytes: \(error)"))
            }
        }
    }
}

/// Every params type of the admin, sync and client sockets, and what edges decode from campaignd.
enum ParamsTypes {
    static let all: [DecodedType] = [
        DecodedType(CreativeUploadParams.self),
        DecodedType(CampaignFields.self, then: { fields, violations in CodecInvariants.checkCampaignRules(fields, &violations) }),
        DecodedType(CampaignUpdateParams.self, then: { params, violations in CodecInvariants.checkCampaignRules(params.fields, &violations) }),
        DecodedType(CampaignID.self),
        DecodedType(CampaignListParams.self),
        DecodedType(CampaignStatsParams.self),
        DecodedType(AppStatsParams.self),
        DecodedType(AppPatch.self),
        DecodedType(AppParams.self),
        DecodedType(ChangeListParams.self),
        DecodedType(NoParams.self),
        DecodedType(ChangesParams.self),
        DecodedType(CreativeChunkParams.self),
        DecodedType(EdgeAck.self),
        DecodedType(EdgeAcks.self),
        DecodedType(EdgeReport.self),
        DecodedType(LaunchQueryParams.self),
        DecodedType(LaunchReportParams.self),
        DecodedType(LaunchPrefetchParams.self),
        DecodedType(LaunchWhyParams.self),
        DecodedType(Change.self),
        DecodedType(Snapshot.self),
    ]
}
