import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import Testing

/// The launch answer is written on the query path from parts prepared with each campaign, straight from the
/// decision; these hold it to the bytes its `Codable` encoding gives, for every shape an answer can take.
@Suite("launch answer", .timeLimit(.minutes(1)))
struct LaunchAnswerTests {
    typealias Engine = DecisionEngineTests

    static func written(_ answer: LaunchAnswer) -> String {
        var writer = JSONWriter()
        answer.write(json: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// The answer as the query path writes it: straight from the decision, without a `LaunchAnswer`.
    static func writtenFromDecision(_ decision: Decision, epoch: String, seq: Int64, creativeBaseURL: String) -> String {
        var writer = JSONWriter()
        writer.writeRaw("[")  // written after other bytes, as in a response
        LaunchAnswer.write(decision, state: AnswerState(epoch: epoch, seq: seq), creativeBase: CreativeBase(creativeBaseURL), into: &writer)
        return String(decoding: writer.bytes.dropFirst(), as: UTF8.self)
    }

    static func encoded(_ answer: LaunchAnswer) throws -> String {
        String(decoding: try JSONValueEncoder().encodeJSON(answer), as: UTF8.self)
    }

    @Test("the answer written from prepared parts is byte for byte its Codable encoding", arguments: [
        Jump(type: .none), Jump(type: .url, value: "https://shop.example.com/a?b=\"c\"&d=\\e"), Jump(type: .deeplink, value: "shop://促销/夏"),
    ])
    func preparedEqualsCodable(jump: Jump) throws {
        var checked = 0
        for skipAfter in [nil, 2] as [Int?] {
            for forced in [false, true] {
                for revoked in [[], [7], [7, 8, 9]] as [[Int64]] {
                    var campaign = Engine.campaign(41, forced: forced, creatives: [Engine.tall, Engine.wide])
                    campaign.jump = jump
                    campaign.skipAfter = skipAfter
                    campaign.skippable = skipAfter != nil
                    campaign.launchTypes = forced ? [.cold, .hot] : [.cold]
                    campaign.version = 12
                    // How the phone lays it out: the defaults left out, the others written in each combination.
                    campaign.display = [nil, .half, .full][checked % 3]
                    campaign.clickArea = [nil, .full, .button, nil][checked % 4]
                    // Muted is the default: videoSound is written only when true, never as false.
                    campaign.videoSound = [nil, true, false][(checked + 1) % 3]
                    // Who it is for and who paid: left out while unset, escaped as JSON when set.
                    campaign.advertiser = [nil, "Shop \"A\" </script>", "双十一"][checked % 3]
                    campaign.paidBy = [nil, "Payer \\ Ltd"][(checked / 3) % 2]
                    let expired = Engine.campaign(7, state: .expired)
                    // A still image, or an animation of a length (the creative's durationMs).
                    var held = Engine.held
                    held[Engine.tall.sha256]?.durationMs = [0, 2_340][checked % 2]
                    // The client holds nothing, the creative of its shape and another, only the other (the nearest
                    // aspect ratio still wins), or one the edge does not know.
                    for cached in [[], [Engine.wide.sha256, Engine.tall.sha256], [Engine.wide.sha256], [String(repeating: "e", count: 64)]] as [Set<String>] {
                        var copy = Engine.decide([campaign, expired], Engine.request(cached: cached), creatives: held)
                        copy.revoked = revoked
                        let shown = try #require(copy.creative?.sha256)
                        let answer = LaunchAnswer(copy, epoch: "ep\"och", seq: 99, creativeBaseURL: "http://127.0.0.1:8200")
                        #expect(answer.hasAd && answer.isPrepared)
                        let written = Self.written(answer)
                        #expect(written == (try Self.encoded(answer)))
                        #expect(Self.writtenFromDecision(copy, epoch: "ep\"och", seq: 99, creativeBaseURL: "http://127.0.0.1:8200")
                                == (try Self.encoded(answer)))
                        let moment = forced || cached.contains(shown) ? 0 : 1
                        #expect(answer.showMoment == moment && answer.launchTypes == campaign.launchTypes)
                        let types = campaign.launchTypes.map { "\"\($0.rawValue)\"" }.joined(separator: ",")
                        #expect(written.contains(#","showMoment":\#(moment),"launchTypes":[\#(types)],"imgUrl":"#), "\(written)")
                        let afterSound = campaign.advertiser != nil ? "advertiser" : campaign.paidBy != nil ? "paidBy" : "expiresAt"
                        #expect(written.contains(#","videoSound":true,"\#(afterSound)":"#) == (campaign.videoSound == true))
                        #expect(!written.contains("videoSound\":false"))
                        #expect(written.contains("\"advertiser\":") == (campaign.advertiser != nil) && !written.contains(":null"))
                        #expect(written.contains("\"paidBy\":") == (campaign.paidBy != nil))
                        if shown == Engine.tall.sha256 {
                            #expect(written.contains(#""size":100,"durationMs":\#([0, 2_340][checked % 2])}"#), "\(written)")
                        }
                    }
                    checked += 1
                }
            }
        }
        // An answer without an ad, and one made from fields (examples, clients), take the general path.
        let none = LaunchAnswer(Engine.decide([]), epoch: "e", seq: 1, creativeBaseURL: "http://x")
        #expect(Self.written(none) == (try Self.encoded(none)))
        var noAd = Engine.decide([Engine.campaign(7, state: .expired)])
        #expect(noAd.campaign == nil && noAd.revoked == [7])
        noAd.revoked = [7, 8]
        #expect(Self.writtenFromDecision(noAd, epoch: "e", seq: 1, creativeBaseURL: "http://x")
                == (try Self.encoded(LaunchAnswer(noAd, epoch: "e", seq: 1, creativeBaseURL: "http://x"))))
        // A base URL that needs escaping is escaped in imgUrl as a whole string would be.
        let odd = Engine.decide([Engine.campaign(5)])
        let oddBase = "http://h/p\"q\\r/ü"
        #expect(Self.writtenFromDecision(odd, epoch: "e", seq: 1, creativeBaseURL: oddBase)
                == (try Self.encoded(LaunchAnswer(odd, epoch: "e", seq: 1, creativeBaseURL: oddBase))))
        let fields = LaunchAnswer(hasAd: true, id: 3, version: 1, imgUrl: "http://x/creatives/a", epoch: "e", seq: 2, revoked: [1])
        #expect(Self.written(fields) == (try Self.encoded(fields)))
        #expect(checked == 12)
    }

    @Test("a field changed after the answer was made is written as changed")
    func changedAfterward() throws {
        let decision = Engine.decide([Engine.campaign(5)])
        var answer = LaunchAnswer(decision, epoch: "e", seq: 1, creativeBaseURL: "http://x")
        #expect(answer.isPrepared)
        answer.jumpValue = "shop://changed"
        answer.expiresAt = Engine.now
        #expect(!answer.isPrepared)
        #expect(Self.written(answer) == (try Self.encoded(answer)))
        #expect(Self.written(answer).contains("shop://changed"))
        // showMoment is one of the prepared members too.
        var moment = LaunchAnswer(decision, epoch: "e", seq: 1, creativeBaseURL: "http://x")
        #expect(moment.showMoment == 1 && moment.isPrepared)
        moment.showMoment = 0
        moment.launchTypes = [.hot]
        #expect(!moment.isPrepared)
        #expect(Self.written(moment) == (try Self.encoded(moment)))
        #expect(Self.written(moment).contains(#""showMoment":0,"launchTypes":["hot"],"#))
        // epoch, seq and revoked are written per answer either way.
        var other = LaunchAnswer(decision, epoch: "e", seq: 1, creativeBaseURL: "http://x")
        other.seq = 2
        other.revoked = [3]
        #expect(other.isPrepared)
        #expect(Self.written(other) == (try Self.encoded(other)))
    }
}

/// `launch.prefetch` answers are written directly; these hold them to their `Codable` encoding.
@Suite("prefetch answer", .timeLimit(.minutes(1)))
struct PrefetchAnswerTests {
    typealias Written = WrittenMessageTests

    @Test("the prefetch answer written from the parts prepared with the state is the answer made of items",
          arguments: ["http://127.0.0.1:8200", "https://cdn.example.com/a\\b/\u{e9}\"/\u{1}\u{2028}", ""])
    func fromPreparedParts(_ base: String) throws {
        // Creatives with escapes in their type, campaigns with extreme ids and times down to the millisecond.
        let facts = [
            CreativeFacts(sha256: String(repeating: "a", count: 64), contentType: "image/png", width: 1179, height: 2556, size: 20_045),
            CreativeFacts(sha256: String(repeating: "b", count: 64), contentType: "image/\"x\"\u{7f}", width: 1, height: 99_999, size: 0),
            CreativeFacts(sha256: String(repeating: "c", count: 64), contentType: "video/mp4", width: 1080, height: 1920, size: Int.max,
                          durationMs: 5_005),
        ]
        let campaigns = [Int64(1), 42, Int64.max, -3].enumerated().map { offset, id in
            APIExamples.campaign {
                $0.id = id
                $0.startsAt = Timestamp(milliseconds: 1_790_000_000_123 + Int64(offset) * 3_600_000)
                $0.endsAt = $0.startsAt.adding(seconds: 86_400.25)
                $0.creatives = facts.suffix(offset + 1).map { CreativeRef(sha256: $0.sha256) } + [CreativeRef(sha256: String(repeating: "f", count: 64))]
            }
        }
        let index = try #require(DecisionEngine.index(campaigns, creatives: Dictionary(uniqueKeysWithValues: facts.map { ($0.sha256, $0) }), preparer: .json)[campaigns[0].app])
        var held: [HeldCreative] = []
        var items: [PrefetchItem] = []
        for candidate in index.candidates {
            for creative in candidate.held {
                held.append(creative)
                let campaign = candidate.campaign, facts = creative.facts
                items.append(PrefetchItem(campaignId: campaign.id, sha256: facts.sha256, url: base + "/creatives/" + facts.sha256,
                                          contentType: facts.contentType, width: facts.width, height: facts.height, size: facts.size,
                                          durationMs: facts.durationMs, startsAt: campaign.startsAt, endsAt: campaign.endsAt))
            }
        }
        #expect(held.count == 1 + 2 + 3 + 3)  // the creative the edge does not hold is left out
        let ends: [([String], [Int64], String, Int64)] = [
            ([], [], "e\u{0}", 17),
            (["x\"", String(repeating: "d", count: 64)], [5, Int64.min], "e\u{0}", 17),
            (["y\"z", "\u{2028}"], [1, -2, Int64.max], "é\n", Int64.max),
        ]
        for (delete, revoked, epoch, seq) in ends {
            var writer = JSONWriter()
            LaunchPrefetchResult.write(download: held, delete: delete, revoked: revoked, epoch: epoch, seq: seq,
                                       creativeBase: CreativeBase(base), into: &writer)
            let expected = LaunchPrefetchResult(download: items, delete: delete, revoked: revoked, epoch: epoch, seq: seq)
            #expect(String(decoding: writer.bytes, as: UTF8.self) == (try Written.encoded(expected)))
        }
    }
}
