/// Where each socket and HTTP address is bound, and where its peers look for it, when no flag or environment
/// variable says otherwise: DESIGN's table of sockets, written once for every program.
public enum DefaultEndpoints {
    /// campaignd's admin ROUTER (adctl connects).
    public static let campaignAdmin = "tcp://127.0.0.1:7100"
    /// campaignd's sync ROUTER (edges connect).
    public static let campaignSync = "tcp://127.0.0.1:7101"
    /// campaignd's update PUB (edges subscribe).
    public static let campaignUpdates = "tcp://127.0.0.1:7102"
    /// campaignd's HTTP address (`/metrics`, `/healthz`).
    public static let campaignHTTP = "127.0.0.1:8100"
    /// deliveryd's client ROUTER (apps, gateways, adload).
    public static let edgeClient = "tcp://127.0.0.1:7200"
    /// deliveryd's HTTP address (`/creatives/{sha256}`, `/metrics`, `/healthz`).
    public static let edgeHTTP = "127.0.0.1:8200"
}
