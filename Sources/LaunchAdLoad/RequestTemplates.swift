import JSONRPC
import LaunchAdAPI
import LaunchAdDomain

/// The bytes of each request a device sends, rendered once so the send path only adds the id.
///
/// A request is `{"jsonrpc":"2.0","id":` + digits + tail, where tail is `,"method":...,"params":{...}}`.
struct RequestTemplates: Sendable {
    static let head = Array(#"{"jsonrpc":"2.0","id":"#.utf8)

    /// Per device: the cold-start query, the hot-start query and the prefetch; and its id's and its app's bytes, for
    /// reports.
    let coldQuery: [[UInt8]]
    let hotQuery: [[UInt8]]
    let prefetch: [[UInt8]]
    let deviceIds: [[UInt8]]
    let apps: [[UInt8]]
    /// The longest tail or id, so a send buffer can be sized once.
    let longest: Int

    init(population: Population) {
        // Each request's params are the API's own params types, encoded: the templates name what the contract names,
        // and a param added there is one the load generator can send.
        func tail<Params: Encodable>(_ method: RPCMethod<Params, some Codable & Sendable>, _ params: Params) -> [UInt8] {
            var writer = JSONWriter(reservingCapacity: 320)
            writer.writeRaw(#","method":"#)
            writer.write(string: method.name)
            writer.writeRaw(#","params":"#)
            // The params are plain values the encoder always takes.
            writer.writeRaw((try? JSONValueEncoder().encodeJSON(params)) ?? Array("{}".utf8))
            writer.append(UInt8(ascii: "}"))
            return writer.bytes
        }
        func query(_ device: Device, launchType: LaunchType? = nil, backgroundSeconds: Int? = nil) -> LaunchQueryParams {
            LaunchQueryParams(app: device.app, platform: device.platform, appVersion: device.appVersion, region: device.region,
                              locale: device.locale, deviceId: device.deviceId,
                              screen: LaunchQueryParams.Screen(width: device.width, height: device.height),
                              launchType: launchType, backgroundSeconds: backgroundSeconds)
        }
        coldQuery = population.devices.map { device in tail(ClientAPI.launchQuery, query(device)) }
        hotQuery = population.devices.enumerated().map { index, device in
            tail(ClientAPI.launchQuery, query(device, launchType: .hot, backgroundSeconds: 60 + (index % 20) * 60))
        }
        prefetch = population.devices.map { device in
            tail(ClientAPI.launchPrefetch, LaunchPrefetchParams(
                app: device.app, platform: device.platform, appVersion: device.appVersion, region: device.region, locale: device.locale,
                screen: LaunchQueryParams.Screen(width: device.width, height: device.height)))
        }
        deviceIds = population.devices.map { Array($0.deviceId.utf8) }
        apps = population.devices.map { Array($0.app.utf8) }
        longest = (coldQuery + hotQuery + prefetch + deviceIds + apps).map(\.count).max() ?? 0
    }
}
