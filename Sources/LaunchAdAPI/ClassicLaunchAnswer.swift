import JSONRPC
import LaunchAdDomain

/// The launch answer in the envelope of the widely copied splash-ad contract that `GET /launch-ad` answers:
/// `{"code":200,"msg":"SUCCESS","data":{…}}`, `data` holding the launch answer's fields: `showMoment` (0 to show the
/// ad at this launch, 1 to download it now and show it later; ``ShowMoment``) and `launchTypes` as `launch.query`
/// answers them.
public enum ClassicLaunchAnswer {
    /// Writes the envelope of `decision`.
    public static func write(_ decision: Decision, state: AnswerState, creativeBase: CreativeBase, into json: inout JSONWriter) {
        json.writeRaw(#"{"code":200,"msg":"SUCCESS","data":"#)
        json.writeObject { data in
            if let candidate = decision.candidate, let held = decision.held {
                let campaign = candidate.campaign
                let facts = held.facts
                data.field("hasAd", true)
                data.field("id", Int(campaign.id))
                data.field("version", campaign.version)
                data.field("imgUrl", creativeBase.url + held.path)
                data.field("creative") { writer in LaunchAnswer.writeCreative(facts, json: &writer) }
                data.field("jumpType", campaign.jump.type.rawValue)
                data.field("jumpValue", campaign.jump.value)
                data.field("showMoment", decision.showMoment.rawValue)
                data.field("launchTypes") { writer in LaunchAnswer.writeLaunchTypes(campaign.launchTypes, json: &writer) }
                data.field("countdown", campaign.countdown)
                data.field("skippable", campaign.skippable)
                data.field("skipAfter", ifPresent: campaign.skipAfter)
                data.field("forced", campaign.forced)
                data.field("advertiser", ifPresent: campaign.advertiser)
                data.field("paidBy", ifPresent: campaign.paidBy)
                data.field("expiresAt", candidate.expiresAtText)
            } else {
                data.field("hasAd", false)
            }
            data.field("epoch", state.epoch)
            data.field("seq", Int(state.seq))
            data.field("revoked") { writer in LaunchAnswer.writeRevoked(decision.revoked, json: &writer) }
        }
        json.append(UInt8(ascii: "}"))
    }

    /// An envelope with no `data`: `code` the HTTP status, `msg` what was wrong (naming the parameter).
    public static func writeError(code: Int, message: String, into json: inout JSONWriter) {
        json.writeObject { object in
            object.field("code", code)
            object.field("msg", message)
        }
    }
}
