/// A request the core cannot carry out as made: a setting's value, a version the store
/// does not hold, a folder that is not the core's to write. The core says what is wrong
/// in its own words (`description`); the command line says it with its flags and
/// commands instead (exit 64 there).
package enum RequestError: PokeSyncError, Equatable {
    /// A sprite set that is not `none`, `default`, `artwork`, `all` or sprite paths.
    case invalidSpriteSet(String)
    /// A cry set that is not none, latest, legacy or all.
    case invalidCrySet(String)
    /// A language list that is not `all` or language codes.
    case invalidLanguageList(String)
    /// A kind set that is not `default`, `all` or a comma list of endpoint names.
    case badKinds(String, reason: String)
    /// Kinds the source's root does not list, and those it lists.
    case unknownKinds([String], known: [String])
    /// Language codes the version's documents do not have, and those they have.
    case unknownLanguages(version: Int, missing: [String], present: [String])
    /// Fewer than one version to keep.
    case keepBelowOne
    /// The store holds no version yet.
    case noVersions
    /// The store does not hold version `asked`; it holds `retained`.
    case noSuchVersion(asked: Int, retained: [Int])
    /// A document source that is not a valid http(s) URL or a folder.
    case invalidSource(String, reason: SourceProblem)
    /// A sprite source URL that is not valid.
    case invalidSpriteSource(String)
    /// The output path is a file where a folder is wanted (`apiData`: an api-data export).
    case outputIsFile(path: String, apiData: Bool)
    /// The output path is a symbolic link.
    case outputIsLink(path: String)
    /// The output folder exists and is not an earlier api-data export of pokesync's.
    case outputNotAnExport(path: String, marker: String)
    /// The output folder is not a bundles folder of pokesync's, and why.
    case outputNotABundlesFolder(path: String, why: String)
    /// A bundle already published in the output folder is of another lineage.
    case bundleOfAnotherLineage(path: String, lineage: String)
    /// A bundle already published in the output folder has another profile.
    case bundleOfAnotherProfile(path: String, profile: String, wanted: String)
    /// The version was mirrored with a sprite set that does not select `count` sprites
    /// the profile's set asks for (`configFile`: the mirror.json whose `bundles.sprites` says the set).
    case spritesNotHeld(version: Int, count: Int, set: String, mirrored: String, example: String, configFile: String)

    /// Why a source is not one.
    package enum SourceProblem: Sendable, Equatable {
        case invalidURL, unsupportedScheme
    }

    package var code: ErrorCode { .badRequest }

    package var description: String {
        switch self {
        case .invalidSpriteSet(let text):
            return "a sprite set is none, default, artwork, all, or a comma list of sprite paths under `sprites` "
                + "such as front_default,other/home/front_shiny (got \"\(text)\")"
        case .invalidCrySet(let text):
            return "a cry set is none, latest, legacy or all (got \"\(text)\")"
        case .invalidLanguageList(let text):
            return "a language list is all or a comma list of language codes such as en,ko,ja-hrkt (got \"\(text)\")"
        case .badKinds(let text, let reason):
            return "a kind set is default, all, or a comma list of endpoint names such as pokemon,item,machine "
                + "(got \"\(text)\": \(reason))"
        case .unknownKinds(let unknown, let known):
            return "the source lists no \(unknown.joined(separator: ", ")); its endpoints are \(known.joined(separator: ", "))"
        case .unknownLanguages(let version, let missing, let present):
            return "version \(version) has no \(missing.joined(separator: ", ")); its languages are \(present.joined(separator: ", "))"
        case .keepBelowOne:
            return "at least one version must be kept: the latest version is never pruned"
        case .noVersions:
            return "the mirror has no versions yet"
        case .noSuchVersion(let asked, let retained):
            return "there is no version \(asked) (retained: \(retained.map(String.init).joined(separator: ", ")))"
        case .invalidSource(let text, .invalidURL):
            return "the source \(text) is not a valid URL"
        case .invalidSource(let text, .unsupportedScheme):
            return "the source \(text) is neither an http(s) URL nor a local folder"
        case .invalidSpriteSource(let text):
            return "the sprite source \(text) is not a valid URL"
        case .outputIsFile(let path, _):
            return "\(path) is a file, not a folder"
        case .outputIsLink(let path):
            return "\(path) is a symbolic link"
        case .outputNotAnExport(let path, let marker):
            return "\(path) already exists and is not an earlier pokesync api-data export (exactly \(marker) and api/)"
        case .outputNotABundlesFolder(let path, let why):
            return "\(path) is not a bundles folder of pokesync's (\(why))"
        case .bundleOfAnotherLineage(let path, let lineage):
            return "\(path) belongs to another lineage (\(lineage)..., a rebuilt mirror?)"
        case .bundleOfAnotherProfile(let path, let profile, let wanted):
            return "\(path) was exported with profile \(profile), not \(wanted)"
        case .spritesNotHeld(let version, let count, let set, let mirrored, let example, _):
            return "version \(version) was mirrored with the sprite set \(mirrored), which does not select \(count) sprite(s) "
                + "the set \(set) asks for (e.g. \(example))"
        }
    }
}

/// `mirror.json` is not valid: a key's value, an unknown key, not JSON (exit 64).
package struct ConfigError: PokeSyncError {
    /// The whole line, naming the file and the key.
    package var message: String
    package init(_ message: String) { self.message = message }
    package var code: ErrorCode { .badConfig }
    package var description: String { message }
}
