/// A move of a pokemon's detail page: its name in the preferred language and its facts.
public struct PokemonMove: Sendable, Hashable, Codable {
    /// The API's slug (`thunderbolt`).
    public let name: String
    /// The name in the first preferred language the data has, else English (`10만볼트`).
    public let localizedName: LocalizedText?
    /// The move's type slug (`electric`).
    public let type: String?
    /// `physical`, `special` or `status`.
    public let damageClass: String?
    public let power: Int?
    public let accuracy: Int?
    public let pp: Int?

    public init(name: String, localizedName: LocalizedText?, type: String?, damageClass: String?, power: Int?,
                accuracy: Int?, pp: Int?) {
        self.name = name
        self.localizedName = localizedName
        self.type = type
        self.damageClass = damageClass
        self.power = power
        self.accuracy = accuracy
        self.pp = pp
    }
}
