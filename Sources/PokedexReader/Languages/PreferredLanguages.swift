import Foundation

/// Language choice for localized texts: the API's language codes (`en`, `ja-hrkt`,
/// `zh-hant`, `es-419`), compared ignoring ASCII case, with English as the fallback.
public enum PreferredLanguages {
    /// The device's languages as API codes: `Locale.preferredLanguages` on Apple platforms,
    /// `["en"]` elsewhere (a server or CLI passes its own list).
    public static var system: [String] {
        #if canImport(Darwin)
        return apiCodes(forLocaleIdentifiers: Locale.preferredLanguages)
        #else
        return ["en"]
        #endif
    }

    /// Maps locale identifiers (BCP 47, `zh-Hant-TW`, `ja-JP`, `es-MX`) to API codes in
    /// order, without duplicates: `zh-Hant-TW` is `zh-hant`, `ja` is `ja` then `ja-hrkt`,
    /// `es-MX` is `es-mx`, `es-419`, `es`, `en-US` is `en-us`, `en`.
    public static func apiCodes(forLocaleIdentifiers identifiers: [String]) -> [String] {
        var codes: [String] = []
        for identifier in identifiers {
            for code in apiCodes(forLocaleIdentifier: identifier) where !codes.contains(code) {
                codes.append(code)
            }
        }
        return codes
    }

    /// The API codes one locale identifier stands for, best first.
    public static func apiCodes(forLocaleIdentifier identifier: String) -> [String] {
        // Drop "@calendar=..." style keywords, use "-" as the separator.
        let tag = identifier.split(separator: "@").first.map(String.init) ?? identifier
        let parts = tag.replacingOccurrences(of: "_", with: "-").lowercased().split(separator: "-").map(String.init)
        guard let language = parts.first, !language.isEmpty else { return [] }
        let script = parts.dropFirst().first { $0.count == 4 }
        let region = parts.dropFirst().first { $0.count == 2 || ($0.count == 3 && $0.allSatisfy(\.isNumber)) }
        switch language {
        case "zh":
            // The API has only the two scripts; Taiwan, Hong Kong and Macau write Traditional.
            let traditional = script == "hant" || (script == nil && ["tw", "hk", "mo"].contains(region ?? ""))
            return traditional ? ["zh-hant", "zh-hans"] : ["zh-hans", "zh-hant"]
        case "ja":
            // `ja` holds kanji names, `ja-hrkt` kana: both are Japanese.
            return ["ja", "ja-hrkt"]
        case "es":
            // The API's Latin American Spanish is `es-419`; Spain's is `es`.
            if let region, region != "es" {
                return unique([parts.joined(separator: "-"), "es-419", "es"])
            }
            return ["es"]
        default:
            return unique([parts.joined(separator: "-"), script.map { "\(language)-\($0)" }, language].compactMap { $0 })
        }
    }

    /// The language to use among `available`: the first of `preferred` that is there
    /// (ignoring ASCII case: the codes are ASCII), else English, else nil. Returns the code as `available` spells it.
    public static func choose(from available: [String], preferred: [String]) -> String? {
        for code in preferred + ["en"] {
            if let match = available.first(where: { sameCode($0, code) }) { return match }
        }
        return nil
    }

    /// Whether two codes are equal ignoring ASCII case. API codes are ASCII; a detail page
    /// compares them thousands of times (a name for each of mew's 375 moves), and
    /// Foundation's `caseInsensitiveCompare` (through NSString on Linux) led the profile.
    static func sameCode(_ a: String, _ b: String) -> Bool {
        a.utf8.elementsEqual(b.utf8) { x, y in
            x == y || (x | 0x20 == y | 0x20 && (x | 0x20) >= UInt8(ascii: "a") && (x | 0x20) <= UInt8(ascii: "z"))
        }
    }

    private static func unique(_ codes: [String]) -> [String] {
        var seen: [String] = []
        for code in codes where !seen.contains(code) { seen.append(code) }
        return seen
    }
}
