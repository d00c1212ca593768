import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import Testing

@Suite("the campaign's field list, declared once", .timeLimit(.minutes(1)))
struct CampaignFieldListTests {
    typealias Key = CampaignFields.CodingKeys

    @Test("each field's written name, its slot in the campaign's keys and its schema follow CampaignFields.CodingKeys")
    func namesAgree() {
        for key in Key.allCases {
            #expect(key.writtenName == key.stringValue)
            #expect(key.campaignKey.stringValue == key.stringValue)
        }
        #expect(CampaignFields.fieldSchemas.map(\.0) == Key.allCases.map(\.stringValue))
        let campaignKeys = Campaign.CodingKeys.allCases.map(\.stringValue)
        #expect(campaignKeys == ["id"] + Key.allCases.map(\.stringValue) + ["state", "version", "createdAt", "updatedAt", "share"])
        // The schema's optional members are those a campaign may leave out, the new ones among them.
        let optional = Set(Key.allCases.filter(\.isOptionalInCampaign).map(\.stringValue))
        #expect(optional == ["skipAfter", "minBackgroundSeconds", "frequencyCap", "audience", "testDevices", "display", "clickArea",
                             "videoSound", "advertiser", "paidBy", "goal", "pacing"])
    }

    @Test("a campaign with every field set is written, read by the tape reader and by Foundation's decoder, and merged, losing none")
    func everyFieldRoundTrips() throws {
        let full = CampaignWritingTests.full()
        let patch = full.patch
        // Every field is set: a field the list gained and the test campaign did not would not be checked.
        let encodedPatch = try JSONValueEncoder().encode(patch).objectValue ?? [:]
        #expect(Set(encodedPatch.keys) == Set(Key.allCases.map(\.stringValue)))

        let written = CampaignWritingTests.written(full)
        #expect(try JSONValueDecoder().decode(Campaign.self, fromJSON: written) == full)
        #expect(try JSONDecoder().decode(Campaign.self, from: Data(written)) == full)
        let text = String(decoding: written, as: UTF8.self)
        #expect(text.contains(#""videoSound":true,"advertiser":"Shop \"A\" <script>&'","paidBy":"双十一 \\ Ltd","goal":{"impressions":1000000000000,"per":"day"},"pacing":"asap","state":"live""#), "\(text)")

        // The merge overlays every field given on a campaign that has none of them, and keeps what it is not given.
        var merged = CampaignWritingTests.minimal().merging(patch)
        merged.id = full.id
        merged.state = full.state
        merged.version = full.version
        merged.createdAt = full.createdAt
        merged.updatedAt = full.updatedAt
        merged.share = full.share
        #expect(merged == full)
        #expect(full.merging(CampaignFields()) == full)
        var renamed = full.merging(CampaignFields(paidBy: "Other Ltd"))
        #expect(renamed.paidBy == "Other Ltd" && renamed.advertiser == full.advertiser)
        renamed.paidBy = full.paidBy
        #expect(renamed == full)
    }

    @Test("campaign.update's params carry the id and every field in one object, strictly: an unknown member is refused by name")
    func updateParams() throws {
        let full = CampaignWritingTests.full()
        let params = CampaignUpdateParams(id: 7, fields: full.patch)
        let encoded = try JSONValueEncoder().encodeJSON(params)
        let object = try JSONParser.parse(encoded)
        #expect(object["id"]?.intValue == 7 && object["advertiser"] == .string(full.advertiser!) && object["paidBy"] == .string(full.paidBy!))
        let decoded = try JSONValueDecoder().decode(CampaignUpdateParams.self, fromJSON: encoded)
        #expect(decoded.id == 7 && decoded.fields == full.patch && decoded.advertiser == full.advertiser)

        let few = try JSONValueDecoder().decode(CampaignUpdateParams.self, fromJSON: Array(#"{"id":3,"paidBy":"P"}"#.utf8))
        #expect(few.id == 3 && few.fields == CampaignFields(paidBy: "P"))
        #expect(throws: DecodingError.self) {
            try JSONValueDecoder().decode(CampaignUpdateParams.self, fromJSON: Array(#"{"id":3,"paid_by":"P"}"#.utf8))
        }
        do {
            _ = try JSONValueDecoder().decode(CampaignUpdateParams.self, fromJSON: Array(#"{"id":3,"advertiser":5}"#.utf8))
            Issue.record("a number for advertiser was accepted")
        } catch let error as DecodingError {
            #expect(error.fieldPath == "advertiser")
        }
    }

    @Test("advertiser and paidBy: 1 to 100 characters with a visible one, no control or bidirectional character, no space at either end",
          arguments: ["advertiser", "paidBy"])
    func partyRules(field: String) throws {
        let now = Timestamp(milliseconds: 1_795_000_000_000)
        let valid = CampaignFields(name: "Sale", app: "shop", startsAt: now, endsAt: now.adding(seconds: 3600),
                                   creatives: [CreativeRef(sha256: String(repeating: "a", count: 64))])
        let kept = try CampaignRules.create(valid, id: 1, now: now, creativeExists: { _ in true })
        /// The refusal on create, which must be the refusal on update too.
        func check(_ value: String) -> FieldError? {
            var fields = CampaignFields()
            fields[keyPath: field == "advertiser" ? \CampaignFields.advertiser : \CampaignFields.paidBy] = value
            var created = valid
            created.advertiser = fields.advertiser
            created.paidBy = fields.paidBy
            var onCreate: FieldError?, onUpdate: FieldError?
            do { _ = try CampaignRules.create(created, id: 1, now: now, creativeExists: { _ in true }) } catch { onCreate = error }
            do { _ = try CampaignRules.update(kept, with: fields, now: now, creativeExists: { _ in true }) } catch {
                if case .field(let refusal) = error { onUpdate = refusal }
            }
            #expect(onCreate == onUpdate)
            return onCreate
        }
        for good in ["A", "Shop \"A\" <script>&'", String(repeating: "广", count: 100), "👨‍👩‍👧 Family Co.", "Ünïcödé ✓"] {
            #expect(check(good) == nil, "\(good)")
        }
        let refused: [(String, String)] = [
            ("", "must not be empty (spaces and invisible characters alone do not count)"),
            ("\u{200B}", "must not be empty (spaces and invisible characters alone do not count)"),
            (String(repeating: "x", count: 101), "must be at most 100 characters"),
            (String(repeating: "e\u{0301}\u{0301}", count: 100), "must be at most 400 bytes of UTF-8 (it has 500)"),
            ("Shop\nForged", "must not contain control characters or line breaks (it has \\u{0A})"),
            ("Shop\u{1B}[2J", "must not contain control characters or line breaks (it has \\u{1B})"),
            ("Shop \u{202E}dlrow", "must not contain bidirectional controls (it has \\u{202E})"),
            (" Shop", "must not begin or end with a space"),
            ("Shop\u{3000}", "must not begin or end with a space"),
        ]
        for (value, rule) in refused {
            #expect(check(value) == FieldError(field, rule), "\(value.debugDescription)")
        }
    }
}
