/// pokesync's own name and version, as it says them to servers.
package enum PokeSync {
    package static let version = "0.2.0"

    /// The one User-Agent pokesync sends: the API's fair-use policy asks clients to say who
    /// they are; `contact` (mirror.json) lets its operators reach the mirror's owner.
    package static func userAgent(contact: String?) -> String {
        var agent = "pokesync/\(version) (+https://github.com/pokesync/pokesync; offline PokeAPI mirror"
        if let contact { agent += "; \(contact)" }
        return agent + ")"
    }
}
