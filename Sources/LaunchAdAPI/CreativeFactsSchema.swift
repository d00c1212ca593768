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
        ], required: ["sha256", "size", "contentType", "width", "height"], description: "A stored creative.")
    }
}
