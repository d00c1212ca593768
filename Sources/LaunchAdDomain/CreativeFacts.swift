/// What an edge knows of a creative's bytes (from campaignd, verified when downloaded).
public struct CreativeFacts: Sendable, Hashable, Codable {
    public var sha256: String
    public var contentType: String
    public var width: Int
    public var height: Int
    public var size: Int
    /// How long it plays once, in milliseconds, read from its bytes at upload: an animated GIF's frame delays summed,
    /// an MP4's duration; 0 for a still image. Facts kept before durations were (an edge's state file, an older
    /// campaignd's or relay's answer) read as 0.
    public var durationMs: Int

    public init(sha256: String, contentType: String, width: Int, height: Int, size: Int, durationMs: Int = 0) {
        self.sha256 = sha256
        self.contentType = contentType
        self.width = width
        self.height = height
        self.size = size
        self.durationMs = durationMs
    }

    enum CodingKeys: String, CodingKey { case sha256, contentType, width, height, size, durationMs }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sha256 = try container.decode(String.self, forKey: .sha256)
        contentType = try container.decode(String.self, forKey: .contentType)
        width = try container.decode(Int.self, forKey: .width)
        height = try container.decode(Int.self, forKey: .height)
        size = try container.decode(Int.self, forKey: .size)
        durationMs = try container.decodeIfPresent(Int.self, forKey: .durationMs) ?? 0
    }
}
