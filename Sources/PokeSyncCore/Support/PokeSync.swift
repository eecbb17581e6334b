/// pokesync's own name and version, as it says them to servers.
package enum PokeSync {
    package static let version = "0.2.0"

    /// The one User-Agent pokesync sends: the API's fair-use policy asks clients to say who
    /// they are; `contact` (mirror.json) lets its operators reach the mirror's owner. No
    /// address of pokesync's own: it has none to give, and an operator speaks for themselves.
    package static func userAgent(contact: String?) -> String {
        var agent = "pokesync/\(version) (offline PokeAPI mirror"
        if let contact { agent += "; \(contact)" }
        return agent + ")"
    }
}
