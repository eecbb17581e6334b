import Foundation
import PokeArchive
import PokeSQLite
import PokedexReader

/// Builds `pokedex.sqlite` (<doc:PokedexReader/DeviceDatabase>) from one stored version.
///
/// Reads each document once, decoding only the fields the schema needs (in parallel, one
/// task per core), checks references, keeps the profile's languages and sprites, then
/// writes the tables in key order into a scratch file with no journal, rebuilds the
/// search table, computes `content_digest`, and `VACUUM INTO`s a compact copy that is
/// synced and renamed over the destination. The same version and profile give the same
/// bytes: rows go in key order, the pragmas are fixed, and the only time in the file is
/// the version's publish time.
package struct DeviceDatabaseBuilder: Sendable {
    package let store: Store

    package init(store: Store) { self.store = store }

    /// Builds the database of `version` at `destination` (replaced if present).
    /// - Parameters:
    ///   - lineage: the mirror's lineage id, written to `meta`.
    ///   - profile: the sprites and languages to keep.
    ///   - references: what a dangling reference does; `.refuse` for anything shipped.
    /// - Throws: `RequestError` (64) for a version the store does not have or a language
    ///   code the version does not have (naming the codes it has); ``ExportError/deviceData(_:)``
    ///   (65) for a dangling reference or a document that lacks a field the schema needs;
    ///   `StoreError.corrupt` (65) for a damaged document; `LocalFileError` or
    ///   `DatabaseError` (74) when the file cannot be written.
    package func build(version: Int, lineage: String, profile: BundleProfile, into destination: URL,
                      references: ReferenceCheck.Policy = .refuse) throws -> DeviceDatabaseInfo {
        guard let record = try store.version(version) else {
            throw RequestError.noSuchVersion(asked: version, retained: try store.versions().map(\.number))
        }
        // The device database reads the default kinds only: no other kind can change a byte of it.
        let deviceKinds = Set(ResourceKind.defaultKinds)
        let documents = try store.documents(version: version).filter { deviceKinds.contains($0.kind) }
        let held = Dictionary(try store.versionSprites(version).map { ($0.url, ($0.path, $0.hash)) },
                              uniquingKeysWith: { first, _ in first })
        let sprites = SpriteSelection(set: try profile.spriteSet(), held: held)
        var rows = try convert(documents, sprites: sprites)

        let dangling = ReferenceCheck.danglingReferences(in: rows, version: version)
        if references == .refuse, let first = dangling.first {
            throw ExportError.deviceData(first + (dangling.count > 1 ? " (and \(dangling.count - 1) more dangling references)" : ""))
        }
        let languages = try Self.keepLanguages(of: profile, in: &rows, version: version)

        let meta: [(String, String)] = [
            (DeviceSchema.MetaKey.schemaVersion, String(DeviceSchema.version)),
            (DeviceSchema.MetaKey.lineage, lineage),
            (DeviceSchema.MetaKey.version, String(version)),
            (DeviceSchema.MetaKey.createdAt, record.createdAt),
            (DeviceSchema.MetaKey.source, ExportedSource.describe(record.source)),
            (DeviceSchema.MetaKey.profile, profile.json),
        ]
        let written = try DeviceDatabaseWriter(destination: destination).write(rows, meta: meta)
        return DeviceDatabaseInfo(version: version, contentDigest: written.digest, size: written.size,
                                  rowCounts: written.rowCounts, languages: languages,
                                  bundledSprites: sprites.bundled(rows), unheldSprites: sprites.unheld(rows),
                                  danglingReferences: dangling)
    }

    /// Decodes every document into its rows, in parallel, and joins them in document
    /// (kind, id) order, which is key order for every table.
    func convert(_ documents: [VersionDocument], sprites: SpriteSelection) throws -> DeviceRows {
        let store = self.store
        let results = ParallelResults<DeviceRows>(count: documents.count)
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8))
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            let decoder = JSONDecoder()
            for index in stride(from: worker, to: documents.count, by: workers) {
                let document = documents[index]
                results.set(index, Result { try Self.rows(of: document, store: store, decoder: decoder, sprites: sprites) })
            }
        }
        var rows = DeviceRows()
        for result in results.take() { rows.append(contentsOf: try result.get()) }
        return rows
    }

    static func rows(of document: VersionDocument, store: Store, decoder: JSONDecoder,
                     sprites: SpriteSelection) throws -> DeviceRows {
        let (body, references) = try store.deviceDocument(document.hash, withSprites: document.kind == .pokemon)
        do {
            switch document.kind {
            case .pokemon:
                return DeviceRows.pokemon(try decoder.decode(PokemonDocument.self, from: Data(body)),
                                          sprites: references, spritePath: sprites.path(of:))
            case .pokemonSpecies:
                return DeviceRows.species(try decoder.decode(SpeciesDocument.self, from: Data(body)))
            case .pokedex:
                return DeviceRows.pokedex(try decoder.decode(PokedexDocument.self, from: Data(body)))
            case .evolutionChain:
                return DeviceRows.evolutionChain(try decoder.decode(EvolutionChainDocument.self, from: Data(body)))
            case .type: return DeviceRows.type(try decoder.decode(TypeDocument.self, from: Data(body)))
            case .ability: return DeviceRows.ability(try decoder.decode(AbilityDocument.self, from: Data(body)))
            case .move: return DeviceRows.move(try decoder.decode(MoveDocument.self, from: Data(body)))
            case .stat: return DeviceRows.stat(try decoder.decode(StatDocument.self, from: Data(body)))
            case .version: return DeviceRows.version(try decoder.decode(GameVersionDocument.self, from: Data(body)))
            case .language: return DeviceRows.language(try decoder.decode(LanguageDocument.self, from: Data(body)))
            default: return DeviceRows()
            }
        } catch let error as DecodingError {
            throw ExportError.deviceData("\(document.kind.apiName) \(document.id): \(Self.describe(error))")
        }
    }

    /// "the document has no field moves[3].move.name" rather than DecodingError's debug
    /// dump; a null or mistyped field in the words the reader uses for a bad index.
    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context): return "the document has no field \(DecodingFailure.path(context, key))"
        case .dataCorrupted(let context): return "the document does not parse (\(context.debugDescription))"
        default: return DecodingFailure.describe(error, in: Data())
        }
    }
}
