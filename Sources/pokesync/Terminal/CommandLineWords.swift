import PokeSyncCore

/// What the core's request errors say on the command line: the setting named by its
/// flag, and what to run about it.
enum CommandLineWords {
    static func describe(_ error: RequestError) -> String {
        switch error {
        case .invalidSpriteSet(let text):
            return "--sprites takes none, default, artwork, all, or a comma list of sprite paths under `sprites` "
                + "such as front_default,other/home/front_shiny (got \"\(text)\")"
        case .invalidCrySet(let text):
            return "--cries takes none, latest, legacy or all (got \"\(text)\")"
        case .invalidLanguageList(let text):
            return "--languages takes all or a comma list of language codes such as en,ko,ja-hrkt (got \"\(text)\")"
        case .unknownLanguages:
            return "--languages: \(error.description)"
        case .badKinds(let text, let reason):
            return "--kinds takes default, all, or a comma list of endpoint names such as pokemon,item,machine "
                + "(got \"\(text)\": \(reason))"
        case .unknownKinds:
            return "--kinds: \(error.description)"
        case .keepBelowOne:
            return "--keep must be at least 1: the latest version is never pruned"
        case .noVersions:
            return "the mirror has no versions yet: run `pokesync full`"
        case .noSuchVersion:
            return error.description
        case .invalidSource(let text, .invalidURL):
            return "--source \(text): not a valid URL"
        case .invalidSource(let text, .unsupportedScheme):
            return "--source \(text): only http(s) URLs and local folders are supported"
        case .invalidSpriteSource(let text):
            return "--sprite-source \(text): not a valid URL"
        case .outputIsFile(let path, let apiData):
            return "--out \(path) is a file, not a folder" + (apiData ? "; give a new path" : "")
        case .outputIsLink(let path):
            return "--out \(path) is a symbolic link; give the folder itself or a new path"
        case .outputNotAnExport:
            return "--out \(error.description); refusing to replace it: give a new path"
        case .outputNotABundlesFolder:
            return "\(error.description); refusing to write there, "
                + "since export replaces index.json and removes bundles it stops naming: give a new or empty folder"
        case .bundleOfAnotherLineage:
            return "\(error.description); export to another --out, or move the old bundles away"
        case .bundleOfAnotherProfile:
            return "\(error.description); export with that profile, or to another --out"
        case .spritesNotHeld(let version, let count, let set, let mirrored, let example, let configFile):
            return "version \(version) was mirrored with --sprites \(mirrored), which does not select \(count) sprite(s) "
                + "--sprites \(set) asks for (e.g. \(example)); export a set it selects (--sprites, or \"bundles\": "
                + "{\"sprites\": ...} in \(configFile)), or mirror them with `pokesync sync --sprites \(set)`"
        }
    }
}
