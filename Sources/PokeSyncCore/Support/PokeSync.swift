/// pokesync's own name and version, as it says them to servers.
public enum PokeSync {
    public static let version = "0.2.0"

    /// The one User-Agent pokesync sends: the API's fair-use policy asks clients to say who
    /// they are; `contact` (mirror.json) lets its operators reach the mirror's owner.
    public static func userAgent(contact: String?) -> String {
        var agent = "pokesync/\(version) (+https://github.com/pokesync/pokesync; offline PokeAPI mirror"
        if let contact { agent += "; \(contact)" }
        return agent + ")"
    }
}
