import LaunchAdDomain

/// The bytes an edge seals of what it acknowledges or reports: every field that matters, in a fixed order and a fixed
/// form, never the JSON text (a relay decodes each record and writes it again, with its id added to `via`). A string
/// is its UTF-8 byte count (4 bytes, big-endian) then its bytes; an integer 8 bytes, big-endian; an optional value one
/// byte (0 absent, 1 present) then the value; a list its count (4 bytes) then its items. A tag naming the kind of
/// record and the version of this layout comes first, so that an acknowledgement's bytes can never pass for a
/// report's. `via` is left out: relays add to it, and what it says is only which way the record came.
public struct SealedFields: Sendable {
    public private(set) var bytes: [UInt8] = []

    init(tag: String) {
        append(tag)
    }

    mutating func append(_ text: String) {
        append(count: text.utf8.count)
        bytes.append(contentsOf: text.utf8)
    }

    mutating func append(_ value: Int64) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func append(count: Int) {
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: count).bigEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func append<T>(optional value: T?, _ body: (inout SealedFields, T) -> Void) {
        guard let value else { return bytes.append(0) }
        bytes.append(1)
        body(&self, value)
    }
}

extension EdgeAck {
    /// What the edge's seal covers: edge id, region, epoch, applied seq and the edge's time of sending.
    public var sealedFields: SealedFields {
        var fields = SealedFields(tag: "launchad edge.ack v1")
        fields.append(edgeId)
        fields.append(region)
        fields.append(epoch)
        fields.append(appliedSeq)
        fields.append(optional: sentAt) { $0.append($1) }
        return fields
    }
}

extension EdgeReport {
    /// What the edge's seal covers: edge id, report id, region, and every count, per campaign, per hour and per app.
    public var sealedFields: SealedFields {
        var fields = SealedFields(tag: "launchad edge.report v1")
        fields.append(edgeId)
        fields.append(reportId)
        fields.append(optional: region) { $0.append($1) }
        fields.append(count: counts.count)
        for item in counts {
            fields.append(item.id)
            fields.append(item.impressions)
            fields.append(item.clicks)
            fields.append(item.skips)
        }
        fields.append(optional: hourly) { fields, hourly in
            fields.append(count: hourly.count)
            for item in hourly {
                fields.append(item.id)
                fields.append(item.hour.milliseconds)
                fields.append(optional: item.sha256) { $0.append($1) }
                fields.append(item.impressions)
                fields.append(item.clicks)
                fields.append(item.skips)
            }
        }
        // After the rest, and only when present, so that a report without them is sealed as before they were: an
        // edge from before them stays valid, and a relay can neither add nor drop the section unseen.
        if let apps {
            fields.append("apps")
            fields.append(count: apps.count)
            for item in apps {
                fields.append(item.app)
                fields.append(item.hour.milliseconds)
                for number in item.numbers { fields.append(number) }
            }
        }
        // Reports by reason, the same way: only when some count has them, each by its place in its list.
        let reported = counts.enumerated().compactMap { index, item in item.reasons.map { (index, $0) } }
        let reportedHours = (hourly ?? []).enumerated().compactMap { index, item in item.reasons.map { (index, $0) } }
        if !reported.isEmpty || !reportedHours.isEmpty {
            fields.append("reasons")
            for list in [reported, reportedHours] {
                fields.append(count: list.count)
                for (index, reasons) in list {
                    fields.append(count: index)
                    for number in reasons.numbers { fields.append(number) }
                }
            }
        }
        return fields
    }
}
