import JSONRPC
import LaunchAdDomain

extension CreativeFacts: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "sha256": .sha256("The creative's name: the sha256 of its bytes."),
            "size": .integer("Bytes.", minimum: 1),
            "contentType": .oneOf(CreativeInspector.contentTypes.sorted(), "Read from the bytes' magic numbers."),
            "width": .integer("Pixels, read from the file's header.", minimum: 1, maximum: 16_384),
            "height": .integer("Pixels, read from the file's header.", minimum: 1, maximum: 16_384),
            "durationMs": .integer("How long it plays once, in milliseconds: an animated GIF's frame delays summed (a delay of 10 ms or less counts as 100 ms, as LaunchAdKit and browsers draw it), an MP4's duration (its video track's mdhd, else its mvhd); 0 for a still image or a GIF of one frame.", minimum: 0, maximum: Int64(CreativeInspector.maxDurationMs)),
        ], required: ["sha256", "size", "contentType", "width", "height", "durationMs"], description: "A stored creative.")
    }
}
