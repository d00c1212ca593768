import JSONRPC
import LaunchAdDomain

extension AnswerPreparer {
    /// The launch answer's and the prefetch item's parts, as ``LaunchAnswer`` and ``PrefetchItem`` encode them (the
    /// launch answer's tests hold the prepared and the `Codable` bytes equal).
    public static let json = AnswerPreparer(
        answer: { campaign, facts, path, expiresAt in
            PreparedAnswer.answer(campaign: campaign, facts: facts, path: path, expiresAt: expiresAt)
        },
        prefetchItem: { campaign, facts, path, startsAt, endsAt in
            PreparedAnswer.prefetchItem(campaign: campaign, facts: facts, path: path, startsAt: startsAt, endsAt: endsAt)
        })
}

/// Writes the parts of answers that depend only on a campaign and one of its creatives (see ``AnswerParts``).
enum PreparedAnswer {
    /// `{"hasAd":true,"id":…,"version":…,"showMoment":…,"launchTypes":[…],"imgUrl":"`, in both forms of
    /// `showMoment` (one for a forced campaign, always shown now), then (after the base URL) the rest of `imgUrl`
    /// (the creative's path) and its closing quote, `,"creative":{…},"jumpType":…,…,"expiresAt":"…"`.
    static func answer(campaign: Campaign, facts: CreativeFacts, path: String, expiresAt: String) -> LaunchAnswerParts {
        var start = JSONWriter(reservingCapacity: 64)
        start.writeRaw("{\"hasAd\":true,\"id\":")
        start.write(int: Int(campaign.id))
        start.writeRaw(",\"version\":")
        start.write(int: campaign.version)
        start.writeRaw(",\"showMoment\":")
        var launchTypes = JSONWriter(reservingCapacity: 48)
        launchTypes.writeRaw(",\"launchTypes\":")
        LaunchAnswer.writeLaunchTypes(campaign.launchTypes, json: &launchTypes)
        launchTypes.writeRaw(",\"imgUrl\":\"")
        func head(_ showMoment: ShowMoment) -> [UInt8] {
            var head = start
            head.write(int: showMoment.rawValue)
            launchTypes.withUnsafeBytes { head.append($0) }
            return head.bytes
        }
        var tail = JSONWriter(reservingCapacity: 400)
        writePathEnd(path, into: &tail)
        tail.writeRaw(",\"creative\":{\"sha256\":")
        tail.write(string: facts.sha256)
        writeShape(facts, into: &tail)
        tail.writeRaw("},\"jumpType\":")
        tail.write(string: campaign.jump.type.rawValue)
        tail.writeRaw(",\"jumpValue\":")
        tail.write(string: campaign.jump.value)
        tail.writeRaw(",\"countdown\":")
        tail.write(int: campaign.countdown)
        tail.writeRaw(campaign.skippable ? ",\"skippable\":true" : ",\"skippable\":false")
        if let skipAfter = campaign.skipAfter {
            tail.writeRaw(",\"skipAfter\":")
            tail.write(int: skipAfter)
        }
        tail.writeRaw(campaign.forced ? ",\"forced\":true" : ",\"forced\":false")
        if let display = campaign.display {
            tail.writeRaw(",\"display\":")
            tail.write(string: display.rawValue)
        }
        if let clickArea = campaign.clickArea {
            tail.writeRaw(",\"clickArea\":")
            tail.write(string: clickArea.rawValue)
        }
        // Muted is the default: the answer says only when the video plays with its sound.
        if campaign.videoSound == true { tail.writeRaw(",\"videoSound\":true") }
        // Unset, they are left out (not null): the hot path writes the same bytes for campaigns without them.
        if let advertiser = campaign.advertiser {
            tail.writeRaw(",\"advertiser\":")
            tail.write(string: advertiser)
        }
        if let paidBy = campaign.paidBy {
            tail.writeRaw(",\"paidBy\":")
            tail.write(string: paidBy)
        }
        tail.writeRaw(",\"expiresAt\":")
        tail.write(string: expiresAt)
        let now = head(.now)
        return LaunchAnswerParts(headNow: now, headLater: campaign.forced ? now : head(.later), tail: tail.bytes)
    }

    /// A prefetch item's members, in the order and form of its `Codable` encoding: `{"campaignId":…,"sha256":…,
    /// "url":"`, then (after the base URL) the path, `","contentType":…` through `"endsAt":"…"}`.
    static func prefetchItem(campaign: Campaign, facts: CreativeFacts, path: String, startsAt: String, endsAt: String) -> AnswerParts {
        var head = JSONWriter(reservingCapacity: 128)
        head.writeRaw("{\"campaignId\":")
        head.write(int: Int(campaign.id))
        head.writeRaw(",\"sha256\":")
        head.write(string: facts.sha256)
        head.writeRaw(",\"url\":\"")
        var tail = JSONWriter(reservingCapacity: 256)
        writePathEnd(path, into: &tail)
        writeShape(facts, into: &tail)
        tail.writeRaw(",\"startsAt\":")
        tail.write(string: startsAt)
        tail.writeRaw(",\"endsAt\":")
        tail.write(string: endsAt)
        tail.append(UInt8(ascii: "}"))
        return AnswerParts(head: head.bytes, tail: tail.bytes)
    }

    /// The rest of a URL string after the base: the creative's path, escaped, and the closing quote.
    private static func writePathEnd(_ path: String, into json: inout JSONWriter) {
        var quotedPath = JSONWriter(reservingCapacity: path.utf8.count + 8)
        quotedPath.write(string: path)
        quotedPath.withUnsafeBytes { json.append(UnsafeRawBufferPointer(rebasing: $0.dropFirst())) }  // without its opening quote
    }

    /// `,"contentType":…,"width":…,"height":…,"size":…,"durationMs":…`
    private static func writeShape(_ facts: CreativeFacts, into json: inout JSONWriter) {
        json.writeRaw(",\"contentType\":")
        json.write(string: facts.contentType)
        json.writeRaw(",\"width\":")
        json.write(int: facts.width)
        json.writeRaw(",\"height\":")
        json.write(int: facts.height)
        json.writeRaw(",\"size\":")
        json.write(int: facts.size)
        json.writeRaw(",\"durationMs\":")
        json.write(int: facts.durationMs)
    }
}
