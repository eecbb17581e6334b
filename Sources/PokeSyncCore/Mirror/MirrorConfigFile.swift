import Foundation

/// Writes `mirror.json`: a new mirror's first run writes the settings it was made with,
/// and a later run records a choice its command line changed, so that the nightly
/// `sync` (which names none) repeats what the operator last chose.
///
/// The file is rewritten whole in pokesync's layout (keys in a fixed order, one a line),
/// through a temporary file renamed over it; every key and value it held is kept.
enum MirrorConfigFile {
    /// The top-level keys in the order the shipped file has them; others follow, sorted.
    static let keyOrder = ["source", "sprite_source", "sprites", "cries", "cry_source", "kinds", "concurrency", "rate",
                           "allow_hosts", "timeout_seconds", "retry", "retention", "bundles", "contact"]
    /// The keys that make the mirror what it is, which a command line's value is recorded in.
    static let choiceKeys = ["source", "sprite_source", "sprites", "cries", "cry_source", "kinds"]

    /// A new mirror's `mirror.json`: its choices, its rate (null when it has no cap), the
    /// other settings in force, and an empty contact for the operator to fill in.
    /// - Returns: false when a `mirror.json` appeared meanwhile (written by hand, or by a
    ///   run that held the lock since this one read its settings): it is left as it is.
    @discardableResult
    static func writeNew(layout: MirrorLayout, settings: RunSettings, choices: MirrorChoices, rate: RateInForce) throws -> Bool {
        guard !FileManager.default.fileExists(atPath: layout.configFile.path) else { return false }
        let config = settings.config
        let object: [String: ConfigValue] = [
            "source": .string(absolute(choices.source)),
            "sprite_source": .string(choices.spriteSource ?? LinkedTree.sprites.upstreamPrefix),
            "sprites": .string(choices.sprites.description),
            "cries": .string(choices.cries.description),
            "cry_source": .string(choices.crySource ?? LinkedTree.cries.upstreamPrefix),
            "kinds": .string(choices.kinds.description),
            "concurrency": .integer(settings.concurrency),
            "rate": rate.requestsPerSecond.map { .number($0) } ?? .null,
            "allow_hosts": .array(settings.allowHosts.map { .string($0) }),
            "timeout_seconds": .integer(settings.timeoutSeconds),
            "retry": .object(["attempts": .integer(config.retry.attempts), "base_delay_ms": .integer(config.retry.baseDelayMs)]),
            "retention": .object(["keep": .integer(config.retention.keep)]),
            // The nightly export's profile asks only for sprites the mirror keeps (a `--sprites
            // none` mirror bundles none), so that its first night's export succeeds.
            "bundles": .object(["grace_hours": .number(config.bundles.graceHours),
                                "sprites": .string(choices.sprites.bundleSet(wanted: config.bundles.sprites)),
                                "languages": .string(config.bundles.languages?.joined(separator: ",") ?? "all")]),
            "contact": settings.contact.map { .string($0) } ?? .null,
        ]
        try write(object, to: layout)
        return true
    }

    /// The choice keys the command line gave a value for that `mirror.json` names with
    /// another value, as (key, file's value, new value); a key the file leaves out (or
    /// null) is not added: the latest version carries that choice.
    static func changes(_ settings: RunSettings) -> [(key: String, old: String, new: String)] {
        guard settings.config.exists else { return [] }
        let file = settings.config
        let fileValues: [String: String?] = [
            "source": file.source, "sprite_source": file.spriteSource, "sprites": file.sprites,
            "cries": file.cries, "cry_source": file.crySource, "kinds": file.kinds,
        ]
        return choiceKeys.compactMap { key in
            guard let given = settings.givenOnCommandLine[key], let old = fileValues[key] ?? nil else { return nil }
            let new = normalized(key, given)
            return normalized(key, old) == new ? nil : (key, old, new)
        }
    }

    /// Sets `values` (choice keys, as ``changes(_:)`` gives them) in the existing file, and
    /// `bundles.sprites` when `bundleSprites` is given.
    /// - Throws: `LocalFileError` when it cannot be read or written.
    static func record(_ values: [String: String], bundleSprites: String? = nil, layout: MirrorLayout) throws {
        let file = layout.configFile
        guard let data = FileManager.default.contents(atPath: file.path),
              case .object(var object) = try JSONDecoder().decode(ConfigValue.self, from: data) else {
            throw LocalFileError(path: file.path, reason: "cannot read it again to record the command line's choices")
        }
        for (key, value) in values { object[key] = .string(value) }
        if let bundleSprites {
            var bundles: [String: ConfigValue] = [:]
            if case .object(let members)? = object["bundles"] { bundles = members }
            bundles["sprites"] = .string(bundleSprites)
            object["bundles"] = .object(bundles)
        }
        try write(object, to: layout)
    }

    /// A choice as `mirror.json` should hold it: a folder as an absolute path (a later
    /// run may start elsewhere), a set in its canonical spelling.
    static func normalized(_ key: String, _ value: String) -> String {
        switch key {
        case "source", "sprite_source", "cry_source": return absolute(value)
        case "sprites": return (try? SpriteSet(parsing: value))?.description ?? value
        case "kinds": return (try? KindSelection(parsing: value))?.description ?? value
        default: return value
        }
    }

    static func absolute(_ source: String) -> String {
        source.contains("://") ? source : URL(fileURLWithPath: source).standardizedFileURL.path
    }

    static func write(_ object: [String: ConfigValue], to layout: MirrorLayout) throws {
        let keys = keyOrder.filter { object[$0] != nil } + object.keys.filter { !keyOrder.contains($0) }.sorted()
        let lines = keys.map { "  \(quoted($0)): \(serialize(object[$0]!))" }
        let text = "{\n" + lines.joined(separator: ",\n") + "\n}\n"
        do {
            try Data(text.utf8).write(to: layout.configFile, options: .atomic)
        } catch {
            throw LocalFileError(path: layout.configFile.path, reason: "cannot write it: \(error.localizedDescription)")
        }
    }

    /// A value on one line: nested objects with their keys sorted.
    static func serialize(_ value: ConfigValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .integer(let number): return String(number)
        case .number(let number): return ConfigReader.format(number)
        case .string(let text): return quoted(text)
        case .array(let items): return "[" + items.map(serialize).joined(separator: ", ") + "]"
        case .object(let members):
            return "{" + members.keys.sorted().map { "\(quoted($0)): \(serialize(members[$0]!))" }.joined(separator: ", ") + "}"
        }
    }

    /// A JSON string literal (quotes, backslashes and control characters escaped).
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 { out += String(format: "\\u%04x", scalar.value) } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out + "\""
    }
}
