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
    /// Base power; nil for a status move or one with variable power.
    public let power: Int?
    /// Accuracy in percent; nil when it never misses.
    public let accuracy: Int?
    /// Power points.
    public let pp: Int?

    /// A move as the reader builds it (for previews and tests).
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

extension PokemonMove {
    /// The `move` columns ``init(slug:row:localizedName:type:)`` reads (`id` finds its name,
    /// `type_id` its type's slug).
    static let columns = ["id", "type_id", "damage_class", "power", "accuracy", "pp"]

    /// A move from its slug, as the pokemon names it, and its `move` row (``columns``):
    /// a row of NULLs when the bundle does not describe the move, which keeps its slug alone.
    init(slug: String, row: ReadRow, localizedName: LocalizedText?, type: String?) throws {
        self.init(name: slug, localizedName: localizedName, type: type, damageClass: try row.optionalText("damage_class"),
                  power: try row.optionalInt("power"), accuracy: try row.optionalInt("accuracy"), pp: try row.optionalInt("pp"))
    }

    /// The same move with its localized name (read after the moves, by their ids).
    func named(_ localizedName: LocalizedText) -> PokemonMove {
        PokemonMove(name: name, localizedName: localizedName, type: type, damageClass: damageClass, power: power,
                    accuracy: accuracy, pp: pp)
    }
}
