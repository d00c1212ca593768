import JSONRPC
import LaunchAdDomain

/// The update stream's topics and notifications.
public enum UpdateStream {
    public static let campaignTopic = "campaign"
    public static let heartbeatTopic = "heartbeat"
    public static let changed = "campaign.changed"
    public static let heartbeat = "heartbeat"
}
