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
    public func write(json: inout JSONWriter) {
        json.writeObject { object in
            object.field("id", Int(id))
            object.field("name", name)
            object.field("app", app)
            object.field("startsAt") { $0.write(timestamp: startsAt) }
            object.field("endsAt") { $0.write(timestamp: endsAt) }
            object.field("priority", priority)
            object.field("weight", weight)
            object.field("forced", forced)
            object.field("countdown", countdown)
            object.field("skippable", skippable)
            object.field("skipAfter", ifPresent: skipAfter)
            object.field("launchTypes") { $0.writeArray(launchTypes) { $0.write(string: $1.rawValue) } }
            object.field("minBackgroundSeconds", ifPresent: minBackgroundSeconds)
            object.field("jump") { jump.write(json: &$0) }
            object.field("creatives") { $0.writeArray(creatives) { $1.write(json: &$0) } }
            object.field("targeting") { targeting.write(json: &$0) }
            if let frequencyCap { object.field("frequencyCap") { frequencyCap.write(json: &$0) } }
            object.field("audience", ifPresent: audience?.rawValue)
            if let testDevices { object.field("testDevices") { $0.write(strings: testDevices) } }
            object.field("display", ifPresent: display?.rawValue)
            object.field("clickArea", ifPresent: clickArea?.rawValue)
            object.field("videoSound", ifPresent: videoSound)
            object.field("state", state.rawValue)
            object.field("version", version)
            object.field("createdAt") { $0.write(timestamp: createdAt) }
            object.field("updatedAt") { $0.write(timestamp: updatedAt) }
        }
    }
}
