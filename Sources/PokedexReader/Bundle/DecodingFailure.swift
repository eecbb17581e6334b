import Foundation

/// One line for why an `index.json` or `manifest.json` did not decode, instead of
/// `DecodingError`'s debug dump ("DecodingError.typeMismatch: expected value of type
/// Int. Path: full.size. Debug description: ...").
package enum DecodingFailure {
    /// "the field full.size has an unexpected type", "there is no field full.sha256",
    /// "it is not JSON". Foundation on Linux reports a number that does not fit its field
    /// (`"size": 5.5`, `1e30`) as data that is not JSON, with no path: when the bytes do
    /// parse as JSON, that is what is said.
    package static func describe(_ error: any Error, in data: Data) -> String {
        guard let error = error as? DecodingError else { return String(describing: error) }
        switch error {
        case .keyNotFound(let key, let context): return "there is no field \(path(context, key))"
        case .valueNotFound(_, let context): return "the field \(path(context)) is null"
        case .typeMismatch(_, let context): return "the field \(path(context)) has an unexpected type"
        case .dataCorrupted(let context):
            if !context.codingPath.isEmpty { return "the field \(path(context)) is not valid" }
            if (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) != nil {
                return "a number is a fraction or too large for its field"
            }
            return "it is not JSON"
        @unknown default: return "it does not decode"
        }
    }

    /// The field a decoding error is at, then `last`: `full.size`, `moves[3].move.name`.
    package static func path(_ context: DecodingError.Context, _ last: (any CodingKey)? = nil) -> String {
        (context.codingPath + (last.map { [$0] } ?? [])).map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }
            .joined().trimmingCharacters(in: CharacterSet(charactersIn: "."))
    }
}
