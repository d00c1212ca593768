/// What both engines share in giving the creatives stored before durations were kept their duration.
enum CreativeDurations {
    /// The creatives whose kind never plays for a time (every type but GIF and MP4): 0 without reading their bytes.
    static let stillCondition = "content_type NOT IN ('image/gif', 'video/mp4')"
}
