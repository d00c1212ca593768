/// A comma-separated list of endpoints (`tcp://a:5601,tcp://b:5601`): every campaignd sharing a database, or every
/// relay. A subscriber connects to all of them (only the leader publishes); a client's calls go to whichever answers.
public enum EndpointList {
    public static func split(_ list: String) -> [String] {
        list.split(separator: ",").map { String($0.filter { !$0.isWhitespace }) }.filter { !$0.isEmpty }
    }
}
