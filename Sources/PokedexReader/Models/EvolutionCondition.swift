import Foundation

/// One way a species evolves from its parent: every field of the API's
/// `evolution_details` entry as a typed value (<doc:PokedexReader/Reader#Details>: trigger, level, item, held item,
/// known move, happiness, time of day, location...). Named things are their slugs (the
/// bundle does not carry items, locations or version groups); absent or null fields are nil.
public struct EvolutionCondition: Sendable, Hashable, Codable {
    /// `level-up`, `use-item`, `trade`, `shed`, ...
    public var trigger: String?
    /// The level it must reach.
    public var minLevel: Int?
    /// An item used on it (`thunder-stone`).
    public var item: String?
    /// An item it holds (`metal-coat` for a trade).
    public var heldItem: String?
    /// 1 female, 2 male.
    public var gender: Int?
    /// A move it must know (`ancient-power`).
    public var knownMove: String?
    /// A type one of its moves must have (`fairy` for Sylveon).
    public var knownMoveType: String?
    /// Where it must level up (`mt-coronet`).
    public var location: String?
    /// The affection it must have.
    public var minAffection: Int?
    /// The beauty it must have (Feebas).
    public var minBeauty: Int?
    /// The damage it must have taken.
    public var minDamageTaken: Int?
    /// Friendship, as the API calls it happiness (Espeon: 160).
    public var minHappiness: Int?
    /// How many times it must have used a move.
    public var minMoveCount: Int?
    /// The steps it must have walked.
    public var minSteps: Int?
    /// Whether it must be raining in the overworld (Goodra).
    public var needsOverworldRain: Bool?
    /// Whether it must be in a multiplayer session.
    public var needsMultiplayer: Bool?
    /// Whether it must be near a special rock.
    public var nearSpecialRock: Bool?
    /// A species that must be in the party (`remoraid` for Mantyke).
    public var partySpecies: String?
    /// A type a party member must have (`dark` for Pancham).
    public var partyType: String?
    /// The region it must be in.
    public var region: String?
    /// 1 attack > defense, 0 equal, -1 attack < defense.
    public var relativePhysicalStats: Int?
    /// `day`, `night`, `dusk`; nil when any time will do (the API's empty string).
    public var timeOfDay: String?
    /// The species it must be traded for (`shelmet` for Karrablast).
    public var tradeSpecies: String?
    /// Whether the device must be turned upside down (Inkay).
    public var turnUpsideDown: Bool?
    /// A move it must have used.
    public var usedMove: String?
    /// The form it must evolve from.
    public var baseForm: String?
    /// The form it evolves into.
    public var evolvedForm: String?
    /// The version group the condition holds in.
    public var versionGroup: String?
    /// Whether this is the default way it evolves, where the API says.
    public var isDefault: Bool?

    private struct Named: Decodable { var name: String }

    private enum Keys: String, CodingKey {
        case trigger, item, gender, location, region
        case minLevel = "min_level", heldItem = "held_item", knownMove = "known_move", knownMoveType = "known_move_type"
        case minAffection = "min_affection", minBeauty = "min_beauty", minDamageTaken = "min_damage_taken"
        case minHappiness = "min_happiness", minMoveCount = "min_move_count", minSteps = "min_steps"
        case needsOverworldRain = "needs_overworld_rain", needsMultiplayer = "needs_multiplayer"
        case nearSpecialRock = "near_special_rock", partySpecies = "party_species", partyType = "party_type"
        case relativePhysicalStats = "relative_physical_stats", timeOfDay = "time_of_day", tradeSpecies = "trade_species"
        case turnUpsideDown = "turn_upside_down", usedMove = "used_move", baseForm = "base_form"
        case evolvedForm = "evolved_form", versionGroup = "version_group", isDefault = "is_default"
    }

    /// Decodes one `evolution_details` entry as the API writes it (snake_case, named
    /// resources as `{"name": ..., "url": ...}`).
    /// - Throws: `DecodingError` when the entry is not a JSON object; a field of the wrong
    ///   type is nil rather than an error.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        func name(_ key: Keys) -> String? { (try? c.decodeIfPresent(Named.self, forKey: key))??.name }
        func int(_ key: Keys) -> Int? { (try? c.decodeIfPresent(Int.self, forKey: key)) ?? nil }
        func bool(_ key: Keys) -> Bool? { (try? c.decodeIfPresent(Bool.self, forKey: key)) ?? nil }
        trigger = name(.trigger); minLevel = int(.minLevel); item = name(.item); heldItem = name(.heldItem)
        gender = int(.gender); knownMove = name(.knownMove); knownMoveType = name(.knownMoveType)
        location = name(.location); minAffection = int(.minAffection); minBeauty = int(.minBeauty)
        minDamageTaken = int(.minDamageTaken); minHappiness = int(.minHappiness); minMoveCount = int(.minMoveCount)
        minSteps = int(.minSteps); needsOverworldRain = bool(.needsOverworldRain); needsMultiplayer = bool(.needsMultiplayer)
        nearSpecialRock = bool(.nearSpecialRock); partySpecies = name(.partySpecies); partyType = name(.partyType)
        region = name(.region); relativePhysicalStats = int(.relativePhysicalStats)
        let time = (try? c.decodeIfPresent(String.self, forKey: .timeOfDay)) ?? nil
        timeOfDay = time?.isEmpty == false ? time : nil
        tradeSpecies = name(.tradeSpecies); turnUpsideDown = bool(.turnUpsideDown); usedMove = name(.usedMove)
        baseForm = name(.baseForm); evolvedForm = name(.evolvedForm); versionGroup = name(.versionGroup)
        isDefault = bool(.isDefault)
    }

    /// Encodes the same snake_case shape, names as `{"name": ...}`, so that a condition
    /// round-trips.
    /// - Throws: what `encoder` throws.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        func name(_ value: String?, _ key: Keys) throws { if let value { try c.encode(["name": value], forKey: key) } }
        try name(trigger, .trigger); try c.encodeIfPresent(minLevel, forKey: .minLevel); try name(item, .item)
        try name(heldItem, .heldItem); try c.encodeIfPresent(gender, forKey: .gender); try name(knownMove, .knownMove)
        try name(knownMoveType, .knownMoveType); try name(location, .location)
        try c.encodeIfPresent(minAffection, forKey: .minAffection); try c.encodeIfPresent(minBeauty, forKey: .minBeauty)
        try c.encodeIfPresent(minDamageTaken, forKey: .minDamageTaken)
        try c.encodeIfPresent(minHappiness, forKey: .minHappiness); try c.encodeIfPresent(minMoveCount, forKey: .minMoveCount)
        try c.encodeIfPresent(minSteps, forKey: .minSteps)
        try c.encodeIfPresent(needsOverworldRain, forKey: .needsOverworldRain)
        try c.encodeIfPresent(needsMultiplayer, forKey: .needsMultiplayer)
        try c.encodeIfPresent(nearSpecialRock, forKey: .nearSpecialRock); try name(partySpecies, .partySpecies)
        try name(partyType, .partyType); try name(region, .region)
        try c.encodeIfPresent(relativePhysicalStats, forKey: .relativePhysicalStats)
        try c.encodeIfPresent(timeOfDay, forKey: .timeOfDay); try name(tradeSpecies, .tradeSpecies)
        try c.encodeIfPresent(turnUpsideDown, forKey: .turnUpsideDown); try name(usedMove, .usedMove)
        try name(baseForm, .baseForm); try name(evolvedForm, .evolvedForm); try name(versionGroup, .versionGroup)
        try c.encodeIfPresent(isDefault, forKey: .isDefault)
    }
}
