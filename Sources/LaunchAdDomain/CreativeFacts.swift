/// What an edge knows of a creative's bytes (from campaignd, verified when downloaded).
public struct CreativeFacts: Sendable, Hashable, Codable {
    public var sha256: String
    public var contentType: String
    public var width: Int
    public var height: Int
    public var size: Int

    public init(sha256: String, contentType: String, width: Int, height: Int, size: Int) {
        self.sha256 = sha256
        self.contentType = contentType
        self.width = width
        self.height = height
        self.size = size
    }
}
