import JSONRPC

// A campaign written straight as JSON text: an edge or a relay writes the campaigns that changed into its state file
// at every save, and `Codable`'s generic machinery was most of what encoding the state cost. Each writer gives the
// bytes the type's `Encodable` conformance gives: the members in the same order, the `nil` ones left out.

extension JSONWriter {
    /// A time, as `Timestamp`'s `Encodable` conformance writes it (its RFC 3339 text).
    public mutating func write(timestamp: Timestamp) {
        write(string: timestamp.rfc3339)
    }

    /// An array of strings.
    mutating func write(strings: [String]) {
        writeArray(strings) { $0.write(string: $1) }
    }
}

extension Jump: JSONWritable {
    public func write(json: inout JSONWriter) {
        json.writeObject { object in
            object.field("type", type.rawValue)
            object.field("value", value)
        }
    }
}

extension CreativeRef: JSONWritable {
    public func write(json: inout JSONWriter) {
        json.writeObject { object in
            object.field("sha256", sha256)
            object.field("weight", weight)
        }
    }
}

extension VersionRange: JSONWritable {
    public func write(json: inout JSONWriter) {
        json.writeObject { object in
            object.field("min", ifPresent: min)
            object.field("max", ifPresent: max)
        }
    }
}

extension Targeting: JSONWritable {
    public func write(json: inout JSONWriter) {
        json.writeObject { object in
            if let platforms { object.field("platforms") { $0.write(strings: platforms) } }
            if let appVersions { object.field("appVersions") { appVersions.write(json: &$0) } }
            if let regions { object.field("regions") { $0.write(strings: regions) } }
            if let locales { object.field("locales") { $0.write(strings: locales) } }
        }
    }
}

extension FrequencyCap: JSONWritable {
    public func write(json: inout JSONWriter) {
        json.writeObject { object in
            object.field("shows", shows)
            object.field("hours", hours)
        }
    }
}

extension CampaignGoal: JSONWritable {
    public func write(json: inout JSONWriter) {
        json.writeObject { object in
            object.field("impressions", impressions)
            object.field("per", per.rawValue)
        }
    }
}

extension CreativeFacts: JSONWritable {
    public func write(json: inout JSONWriter) {
        json.writeObject { object in
            object.field("sha256", sha256)
            object.field("contentType", contentType)
            object.field("width", width)
            object.field("height", height)
            object.field("size", size)
            object.field("durationMs", durationMs)
        }
    }
}

extension Campaign: JSONWritable {
    /// Writes each operator field in order, an unset optional one left out.
    private struct FieldWriter: CampaignFieldVisitor {
        let campaign: Campaign
        /// The object being written, in place (a copy would copy the bytes written so far).
        let object: UnsafeMutablePointer<JSONObjectWriter>

        mutating func visit<Value>(_ field: CampaignField<Value>) {
            guard let value = field.value(in: campaign) else { return }
            object.pointee.field(field.name) { value.write(field: &$0) }
        }
    }

    public func write(json: inout JSONWriter) {
        json.writeObject { object in
            object.field("id", Int(id))
            withUnsafeMutablePointer(to: &object) { object in
                var writer = FieldWriter(campaign: self, object: object)
                CampaignFields.CodingKeys.acceptAll(&writer)
            }
            object.field("state", state.rawValue)
            object.field("version", version)
            object.field("createdAt") { $0.write(timestamp: createdAt) }
            object.field("updatedAt") { $0.write(timestamp: updatedAt) }
            if let share { object.field("share") { $0.write(double: share) } }
        }
    }
}
