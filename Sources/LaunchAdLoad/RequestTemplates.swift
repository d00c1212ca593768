import JSONRPC

/// The bytes of each request a device sends, rendered once so the send path only adds the id.
///
/// A request is `{"jsonrpc":"2.0","id":` + digits + tail, where tail is `,"method":...,"params":{...}}`.
struct RequestTemplates: Sendable {
    static let head = Array(#"{"jsonrpc":"2.0","id":"#.utf8)

    /// Per device: the cold-start query, the hot-start query and the prefetch; and its id's bytes, for reports.
    let coldQuery: [[UInt8]]
    let hotQuery: [[UInt8]]
    let prefetch: [[UInt8]]
    let deviceIds: [[UInt8]]
    /// The longest tail or id, so a send buffer can be sized once.
    let longest: Int

    init(population: Population) {
        func tail(_ method: StaticString, _ device: Device, extra: (inout JSONObjectWriter) -> Void) -> [UInt8] {
            var writer = JSONWriter(reservingCapacity: 320)
            writer.writeRaw(#","method":""#)
            writer.writeRaw(String(describing: method))
            writer.writeRaw(#"","params":"#)
            writer.writeObject { object in
                object.field("app", device.app)
                object.field("platform", device.platform)
                object.field("appVersion", device.appVersion)
                object.field("region", device.region)
                object.field("locale", device.locale)
                extra(&object)
                object.field("screen") { inner in
                    inner.writeObject { screen in
                        screen.field("width", device.width)
                        screen.field("height", device.height)
                    }
                }
            }
            writer.append(UInt8(ascii: "}"))
            return writer.bytes
        }
        coldQuery = population.devices.map { device in tail("launch.query", device) { $0.field("deviceId", device.deviceId) } }
        hotQuery = population.devices.enumerated().map { index, device in
            tail("launch.query", device) { object in
                object.field("deviceId", device.deviceId)
                object.field("launchType", "hot")
                object.field("backgroundSeconds", 60 + (index % 20) * 60)
            }
        }
        prefetch = population.devices.map { device in tail("launch.prefetch", device) { _ in } }
        deviceIds = population.devices.map { Array($0.deviceId.utf8) }
        longest = (coldQuery + hotQuery + prefetch + deviceIds).map(\.count).max() ?? 0
    }
}
