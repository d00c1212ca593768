/// One rule a market holds a campaign to: the field it is about, what it asks in words, the law or regulator it comes
/// from, and the check. ``MarketRules/all`` is the one table of them: campaignd checks it on create and update,
/// `app.set` lists the campaigns that break it, and the documents are generated from it.
public struct MarketRule: Sendable {
    public let market: Market
    public let field: CampaignFields.CodingKeys
    /// What the field must be, as an error says it ("must be true").
    public let rule: String
    /// Where the rule comes from.
    public let source: String
    /// Whether a campaign keeps the rule.
    public let isKept: @Sendable (Campaign) -> Bool

    public init(_ market: Market, _ field: CampaignFields.CodingKeys, _ rule: String, source: String,
                isKept: @escaping @Sendable (Campaign) -> Bool) {
        self.market = market
        self.field = field
        self.rule = rule
        self.source = source
        self.isKept = isKept
    }

    /// The rule as a campaign broke it.
    public var breach: MarketRuleBreach {
        MarketRuleBreach(field: field.stringValue, market: market, rule: rule, source: source)
    }
}

/// The rules of every market: a new market or rule is one entry here.
public enum MarketRules {
    static let oneTapClose = "SAMR, Internet Advertising Measures Art. 10 (since 2023-05-01): a launch ad closes with one tap from its first frame"

    public static let all: [MarketRule] = [
        MarketRule(.cn, .skippable, "must be true", source: oneTapClose) { $0.skippable },
        MarketRule(.cn, .skipAfter, "must be 0 (or absent)", source: oneTapClose) { ($0.skipAfter ?? 0) == 0 },
        MarketRule(.cn, .clickArea, "must be button (or absent)",
                   source: "MIIT 2021 app campaign: no whole-screen image or video as the jump, the button only") { ($0.clickArea ?? .button) == .button },
        MarketRule(.eu, .advertiser, "is required",
                   source: "DSA Art. 26: each ad says on whose behalf it is shown") { $0.advertiser != nil },
    ]

    /// The rules of `market`, in the table's order.
    public static func rules(of market: Market) -> [MarketRule] {
        all.filter { $0.market == market }
    }

    /// Every rule of `market` the campaign breaks, in the table's order (empty when it keeps them all).
    public static func breaches(of campaign: Campaign, in market: Market) -> [MarketRuleBreach] {
        rules(of: market).filter { !$0.isKept(campaign) }.map(\.breach)
    }

    /// Throws the refusal when the campaign breaks any rule of `market`, naming every one.
    public static func check(_ campaign: Campaign, in market: Market) throws(MarketRefusal) {
        let broken = breaches(of: campaign, in: market)
        guard broken.isEmpty else { throw MarketRefusal(app: campaign.app, market: market, breaches: broken) }
    }

    /// Whether an operation is checked against the market's rules as create and update are: resuming and forcing
    /// make a campaign serve again (or first), so one that breaks its market's rules is refused; pausing, unforcing,
    /// expiring and deleting take a breaking campaign off the air and are always allowed.
    public static func isChecked(_ operation: CampaignOperation) -> Bool {
        operation == .resumed || operation == .forced
    }

    /// The table in Markdown, as the documents show it.
    public static var markdownTable: String {
        var lines = ["| market | field | rule | source |", "| --- | --- | --- | --- |"]
        for rule in all { lines.append("| `\(rule.market.rawValue)` | `\(rule.field.stringValue)` | \(rule.rule) | \(rule.source) |") }
        return lines.joined(separator: "\n")
    }
}

/// A rule of a market a campaign breaks.
public struct MarketRuleBreach: Sendable, Codable, Hashable, CustomStringConvertible {
    public var field: String
    public var market: Market
    public var rule: String
    public var source: String

    public init(field: String, market: Market, rule: String, source: String) {
        self.field = field
        self.market = market
        self.rule = rule
        self.source = source
    }

    public var description: String { "\(field) \(rule) in the \(market.rawValue) market (\(source))" }
}

/// A campaign refused because it breaks rules of its app's market: every broken rule, in the table's order.
public struct MarketRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    public var app: String
    public var market: Market
    public var breaches: [MarketRuleBreach]

    public init(app: String, market: Market, breaches: [MarketRuleBreach]) {
        self.app = app
        self.market = market
        self.breaches = breaches
    }

    public var description: String {
        "the app \(app) is in the \(market.rawValue) market, whose rules the campaign breaks: "
            + breaches.map { "\($0.field) \($0.rule) (\($0.source))" }.joined(separator: "; ")
    }
}

/// A campaign that breaks rules of its app's market (set after the campaign was accepted): what `app.set` answers.
public struct BreakingCampaign: Sendable, Codable, Hashable {
    public var id: Int64
    public var name: String
    public var state: CampaignState
    /// Every rule it breaks, in the table's order.
    public var breaches: [MarketRuleBreach]

    public init(id: Int64, name: String, state: CampaignState, breaches: [MarketRuleBreach]) {
        self.id = id
        self.name = name
        self.state = state
        self.breaches = breaches
    }

    /// The live, scheduled and paused campaigns among `campaigns` that break rules of `market`, by id, each with its
    /// state: a `paused` one serves nothing now but would be refused on resume. Expired and deleted ones are not
    /// answered: they never serve again.
    public static func among(_ campaigns: [Campaign], in market: Market) -> [BreakingCampaign] {
        campaigns.filter { $0.state == .live || $0.state == .scheduled || $0.state == .paused }.sorted { $0.id < $1.id }.compactMap { campaign in
            let breaches = MarketRules.breaches(of: campaign, in: market)
            return breaches.isEmpty ? nil : BreakingCampaign(id: campaign.id, name: campaign.name, state: campaign.state, breaches: breaches)
        }
    }
}
