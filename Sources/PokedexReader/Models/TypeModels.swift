/// A type (`electric`) with its name in the preferred language (<doc:PokedexReader/Reader#Types-and-matchups>: every type with
/// its localized name).
public struct PokemonType: Sendable, Hashable, Codable, Identifiable {
    /// The API's type id.
    public let id: Int
    /// The API's slug, as in ``PokemonSummary/types``.
    public let name: String
    /// The name in the first preferred language the data has, else English; nil when the
    /// bundle has no name for it.
    public let localizedName: LocalizedText?
    /// The generation's slug (`generation-i`).
    public let generation: String?

    /// A type as the reader builds it (for previews and tests).
    public init(id: Int, name: String, localizedName: LocalizedText?, generation: String?) {
        self.id = id
        self.name = name
        self.localizedName = localizedName
        self.generation = generation
    }

    /// The localized name, else the slug.
    public var displayName: String { localizedName?.text ?? name }
}

/// How much damage every attacking type does to one pokemon (<doc:PokedexReader/Reader#Types-and-matchups>: a pokemon's
/// defensive chart): the product of `type_efficacy` factors over its types.
public struct TypeDefense: Sendable, Hashable, Codable {
    /// Every attacking type with its factor (0, 0.25, 0.5, 1, 2 or 4), in type id order.
    public let factors: [TypeFactor]

    /// A chart from its factors (for previews and tests).
    public init(factors: [TypeFactor]) { self.factors = factors }

    /// The factor of one attacking type (by slug); 1 for a type the chart does not list.
    public func factor(of attacking: String) -> Double {
        factors.first { $0.type.name == attacking }?.factor ?? 1
    }

    /// The attacking types grouped by factor, largest factor first (4x, 2x, 1x, 1/2x, 1/4x, 0x).
    public var byFactor: [(factor: Double, types: [PokemonType])] {
        Dictionary(grouping: factors, by: \.factor).sorted { $0.key > $1.key }.map { ($0.key, $0.value.map(\.type)) }
    }

    /// Equal when the factors are.
    public static func == (lhs: TypeDefense, rhs: TypeDefense) -> Bool { lhs.factors == rhs.factors }
    /// Hashes the factors.
    public func hash(into hasher: inout Hasher) { hasher.combine(factors) }
}

/// One attacking type and its damage factor.
public struct TypeFactor: Sendable, Hashable, Codable {
    /// The attacking type.
    public let type: PokemonType
    /// 0, 0.25, 0.5, 1, 2 or 4: the product of its factors against each defending type.
    public let factor: Double

    /// A factor as the reader builds it (for previews and tests).
    public init(type: PokemonType, factor: Double) {
        self.type = type
        self.factor = factor
    }
}

/// A language of the bundle with its name, for a language picker.
public struct BundleLanguage: Sendable, Hashable, Codable, Identifiable {
    /// The API's code (`ko`, `zh-hant`).
    public let code: String
    /// Its name in the first preferred language the data has (`Coréen` for `ko` in
    /// French), else English; nil when the bundle names it in none of them.
    public let localizedName: LocalizedText?
    /// Its name written in itself (`한국어`), when the data has it.
    public let nativeName: String?

    /// `Identifiable`: the code.
    public var id: String { code }

    /// A language as the reader builds it (for previews and tests).
    public init(code: String, localizedName: LocalizedText?, nativeName: String?) {
        self.code = code
        self.localizedName = localizedName
        self.nativeName = nativeName
    }
}

extension PokemonType {
    /// The `type` columns ``init(row:localizedName:)`` reads.
    static let columns = ["id", "name", "generation"]

    /// A type from its `type` row (``columns``) and its name.
    init(row: ReadRow, localizedName: LocalizedText?) throws {
        self.init(id: try row.int("id"), name: try row.text("name"), localizedName: localizedName,
                  generation: try row.optionalText("generation"))
    }
}
