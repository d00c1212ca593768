import JSONRPC
import LaunchAdDomain

/// Where an edge serves creatives: the start of every `imgUrl` it answers, escaped for JSON once (when the edge
/// learns its address) rather than in every answer.
public struct CreativeBase: Sendable {
    public let url: String
    /// `url` as the inside of a JSON string.
    let escaped: [UInt8]

    public init(_ url: String) {
        self.url = url
        var writer = JSONWriter(reservingCapacity: url.utf8.count + 8)
        writer.write(string: url)
        escaped = writer.withUnsafeBytes { Array($0.dropFirst().dropLast()) }  // without the quotes
    }
}

/// The state an edge answers from, as the launch answer's `epoch` and `seq`: written as JSON once per state rather
/// than in every answer. A class: a query takes it out of the edge's state with one reference count, where a struct
/// of a string, an array and an offset was copied field by field (and destroyed so) on every answer.
public final class AnswerState: Sendable {
    public let epoch: String
    public let seq: Int64
    /// `,"epoch":"…","seq":…,"revoked":[]}`: an answer's end when nothing is revoked, written as one run; with
    /// revoked ids, its first ``revokedAt`` bytes, then the list and the brace.
    let json: [UInt8]
    /// Where `[]}` starts in ``json``.
    let revokedAt: Int

    public init(epoch: String, seq: Int64) {
        self.epoch = epoch
        self.seq = seq
        var writer = JSONWriter(reservingCapacity: epoch.utf8.count + 48)
        writer.writeRaw(",\"epoch\":")
        writer.write(string: epoch)
        writer.writeRaw(",\"seq\":")
        writer.write(int: Int(seq))
        writer.writeRaw(",\"revoked\":")
        revokedAt = writer.count
        writer.writeRaw("[]}")
        json = writer.bytes
    }
}

/// The launch answer, with the field names apps already parse.
public struct LaunchAnswer: Codable, Sendable, JSONWritable {
    /// The creative shown: what the edge knows of its bytes.
    public typealias Creative = CreativeFacts

    // A field changed after the answer was made from a decision drops the parts prepared with it, so what is
    // written stays what the fields say.
    public var hasAd: Bool { didSet { prepared = nil } }
    public var id: Int64? { didSet { prepared = nil } }
    public var version: Int? { didSet { prepared = nil } }
    /// 0: show the ad at this launch (it is forced, or its creative is among the query's `cached`); 1: download it
    /// now and show it from the cache at a later launch (see ``ShowMoment``).
    public var showMoment: Int? { didSet { prepared = nil } }
    /// The launch moments the campaign is for (`cold`, `hot`): what `showMoment` said before it was a number.
    public var launchTypes: [LaunchType]? { didSet { prepared = nil } }
    public var imgUrl: String? { didSet { prepared = nil } }
    public var creative: Creative? { didSet { prepared = nil } }
    public var jumpType: String? { didSet { prepared = nil } }
    public var jumpValue: String? { didSet { prepared = nil } }
    public var countdown: Int? { didSet { prepared = nil } }
    public var skippable: Bool? { didSet { prepared = nil } }
    public var skipAfter: Int? { didSet { prepared = nil } }
    public var forced: Bool? { didSet { prepared = nil } }
    /// The campaign's `display` and `clickArea`, when not the defaults (`full`, `button`): how the SDK lays the ad out.
    public var display: CampaignDisplay? { didSet { prepared = nil } }
    public var clickArea: CampaignClickArea? { didSet { prepared = nil } }
    /// `true` when the campaign's video plays with its sound; absent otherwise (the SDK plays it muted).
    public var videoSound: Bool? { didSet { prepared = nil } }
    /// The campaign's `advertiser` and `paidBy`, when it has them: who the ad is for and who paid for it.
    public var advertiser: String? { didSet { prepared = nil } }
    public var paidBy: String? { didSet { prepared = nil } }
    public var expiresAt: Timestamp? { didSet { prepared = nil; expiresAtText = nil } }
    public var epoch: String
    public var seq: Int64
    public var revoked: [Int64]
    /// `expiresAt` already as text, when the answer was made from a decision (saves formatting it per query).
    private var expiresAtText: String?
    /// The members prepared with the decision's creative, when the answer was made from a decision and none of
    /// the fields they hold was changed since.
    private var prepared: AnswerParts?
    /// Whether ``write(json:)`` writes from prepared parts (for tests).
    public var isPrepared: Bool { prepared != nil }
    private var creativeBase = CreativeBase("")

    enum CodingKeys: String, CodingKey {
        case hasAd, id, version, showMoment, launchTypes, imgUrl, creative, jumpType, jumpValue, countdown, skippable, skipAfter,
             forced, display, clickArea, videoSound, advertiser, paidBy, expiresAt, epoch, seq, revoked
    }

    /// An answer from its fields (examples and clients; the service makes its answers from decisions).
    public init(hasAd: Bool, id: Int64? = nil, version: Int? = nil, showMoment: Int? = nil, launchTypes: [LaunchType]? = nil,
                imgUrl: String? = nil, creative: Creative? = nil, jumpType: String? = nil, jumpValue: String? = nil, countdown: Int? = nil,
                skippable: Bool? = nil, skipAfter: Int? = nil, forced: Bool? = nil, display: CampaignDisplay? = nil,
                clickArea: CampaignClickArea? = nil, videoSound: Bool? = nil, advertiser: String? = nil, paidBy: String? = nil,
                expiresAt: Timestamp? = nil, epoch: String, seq: Int64, revoked: [Int64]) {
        self.hasAd = hasAd
        self.id = id
        self.version = version
        self.showMoment = showMoment
        self.launchTypes = launchTypes
        self.imgUrl = imgUrl
        self.creative = creative
        self.jumpType = jumpType
        self.jumpValue = jumpValue
        self.countdown = countdown
        self.skippable = skippable
        self.skipAfter = skipAfter
        self.forced = forced
        self.display = display
        self.clickArea = clickArea
        self.videoSound = videoSound
        self.advertiser = advertiser
        self.paidBy = paidBy
        self.expiresAt = expiresAt
        self.epoch = epoch
        self.seq = seq
        self.revoked = revoked
    }

    /// The answer for a decision.
    public init(_ decision: Decision, epoch: String, seq: Int64, creativeBaseURL: String) {
        self.epoch = epoch
        self.seq = seq
        revoked = decision.revoked
        guard let candidate = decision.candidate, let held = decision.held else {
            hasAd = false
            return
        }
        let campaign = candidate.campaign
        let facts = held.facts
        hasAd = true
        id = campaign.id
        version = campaign.version
        showMoment = decision.showMoment.rawValue
        launchTypes = campaign.launchTypes
        imgUrl = creativeBaseURL + held.path
        creative = facts
        jumpType = campaign.jump.type.rawValue
        jumpValue = campaign.jump.value
        countdown = campaign.countdown
        skippable = campaign.skippable
        skipAfter = campaign.skipAfter
        forced = campaign.forced
        display = campaign.display
        clickArea = campaign.clickArea
        videoSound = campaign.videoSound == true ? true : nil
        advertiser = campaign.advertiser
        paidBy = campaign.paidBy
        expiresAt = campaign.endsAt
        expiresAtText = candidate.expiresAtText
        prepared = held.answerParts.parts(decision.showMoment)
        creativeBase = CreativeBase(creativeBaseURL)
    }

    /// Writes the answer for `decision` straight from the parts prepared with its campaign and creative (the form
    /// for its `showMoment`), without making a ``LaunchAnswer``: what `LaunchAnswer(decision, …).write(json:)`
    /// writes, for the query path.
    public static func write(_ decision: Decision, state: AnswerState, creativeBase: CreativeBase, into json: inout JSONWriter) {
        guard decision.candidate != nil, let held = decision.held else {
            json.writeRaw("{\"hasAd\":false")
            writeState(state, revoked: decision.revoked, json: &json)
            return
        }
        // The two arrays written, read straight from the creative (a copy of its parts would retain all three).
        writePrepared(head: decision.showMoment == .now ? held.answerParts.headNow : held.answerParts.headLater,
                      tail: held.answerParts.tail, creativeBase: creativeBase, json: &json)
        writeState(state, revoked: decision.revoked, json: &json)
    }

    public func write(json: inout JSONWriter) {
        if hasAd, let prepared {
            Self.writePrepared(prepared, creativeBase: creativeBase, json: &json)
            Self.writeState(AnswerState(epoch: epoch, seq: seq), revoked: revoked, json: &json)
            return
        }
        json.writeObject { object in
            object.field("hasAd", hasAd)
            if hasAd {
                object.field("id", ifPresent: id.map(Int.init))
                object.field("version", ifPresent: version)
                object.field("showMoment", ifPresent: showMoment)
                if let launchTypes {
                    object.field("launchTypes") { writer in Self.writeLaunchTypes(launchTypes, json: &writer) }
                }
                object.field("imgUrl", ifPresent: imgUrl)
                if let creative {
                    object.field("creative") { writer in Self.writeCreative(creative, json: &writer) }
                }
                object.field("jumpType", ifPresent: jumpType)
                object.field("jumpValue", ifPresent: jumpValue)
                object.field("countdown", ifPresent: countdown)
                object.field("skippable", ifPresent: skippable)
                object.field("skipAfter", ifPresent: skipAfter)
                object.field("forced", ifPresent: forced)
                object.field("display", ifPresent: display?.rawValue)
                object.field("clickArea", ifPresent: clickArea?.rawValue)
                object.field("videoSound", ifPresent: videoSound)
                object.field("advertiser", ifPresent: advertiser)
                object.field("paidBy", ifPresent: paidBy)
                object.field("expiresAt", ifPresent: expiresAtText ?? expiresAt?.rfc3339)
            }
            object.field("epoch", epoch)
            object.field("seq", Int(seq))
            object.field("revoked") { writer in Self.writeRevoked(revoked, json: &writer) }
        }
    }

    /// `{"hasAd":true,` through `"expiresAt":"…"` (or a prefetch item's members): the members prepared with the
    /// campaign and creative, with the edge's base URL inside `imgUrl` (or `url`).
    static func writePrepared(_ parts: AnswerParts, creativeBase: CreativeBase, json: inout JSONWriter) {
        writePrepared(head: parts.head, tail: parts.tail, creativeBase: creativeBase, json: &json)
    }

    /// `writePrepared(_:creativeBase:json:)` of a head and a tail.
    @inline(__always)
    static func writePrepared(head: [UInt8], tail: [UInt8], creativeBase: CreativeBase, json: inout JSONWriter) {
        json.writeRaw(head, creativeBase.escaped, tail)
    }

    /// `,"epoch":…,"seq":…,"revoked":[…]}`: the end of an answer written from prepared parts.
    private static func writeState(_ state: AnswerState, revoked: [Int64], json: inout JSONWriter) {
        guard !revoked.isEmpty else {
            json.writeRaw(state.json)
            return
        }
        state.json.withUnsafeBytes { json.append(UnsafeRawBufferPointer(rebasing: $0[..<state.revokedAt])) }
        writeRevoked(revoked, json: &json)
        json.append(UInt8(ascii: "}"))
    }

    /// A creative's facts as the answer's `creative` object has them.
    static func writeCreative(_ facts: CreativeFacts, json writer: inout JSONWriter) {
        writer.writeObject { inner in
            inner.field("sha256", facts.sha256)
            inner.field("contentType", facts.contentType)
            inner.field("width", facts.width)
            inner.field("height", facts.height)
            inner.field("size", facts.size)
            inner.field("durationMs", facts.durationMs)
        }
    }

    /// A campaign's launch moments, as the answer's `launchTypes` has them.
    static func writeLaunchTypes(_ launchTypes: [LaunchType], json writer: inout JSONWriter) {
        writer.writeArray(launchTypes) { writer, type in writer.write(string: type.rawValue) }
    }

    static func writeRevoked(_ revoked: [Int64], json writer: inout JSONWriter) {
        writer.writeArray(revoked) { writer, id in writer.write(int: Int(id)) }
    }
}
