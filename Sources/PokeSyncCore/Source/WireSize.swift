import Foundation

/// How many bytes a body took on its way here.
///
/// Over HTTP the body's size as sent is known from its `Content-Length` (the compressed
/// size of a gzip-encoded body), or is its decoded size when it was not encoded. A body
/// sent encoded without a length (chunked gzip, as nginx and other static servers send
/// it) has no known size: FoundationNetworking decodes inside libcurl and hands over
/// decoded bytes only (`countOfBytesReceived` stays 0 and there are no task metrics on
/// Linux), so its size on the wire is said to be unknown rather than guessed.
package enum WireSize: Sendable, Hashable {
    /// Read from a local folder: nothing travelled.
    case local
    /// Bytes of the body as sent over HTTP.
    case bytes(Int)
    /// Sent over HTTP, encoded, without a `Content-Length`.
    case unknown

    /// The size as sent of a response's body: its Content-Length when given, else the
    /// decoded size when the body was not encoded; zero for a 304 or 204, which have no body.
    /// - Parameters: contentLength, contentEncoding: the header fields, when present.
    package static func of(status: Int, decodedBytes: Int, contentLength: String?, contentEncoding: String?) -> WireSize {
        if status == 304 || status == 204 { return .bytes(0) }
        if let length = contentLength.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }), length >= 0 {
            return .bytes(length)
        }
        let encoding = contentEncoding?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        return encoding.isEmpty || encoding == "identity" ? .bytes(decodedBytes) : .unknown
    }
}

/// Body bytes a run moved: decoded, read from folders, and as sent over HTTP where known.
package struct TransferBytes: Sendable, Hashable {
    /// Every body's decoded size, from folders and over HTTP.
    package var decoded = 0
    /// Of `decoded`, what was read from local folders (`--source DIR`, `--sprite-source DIR`).
    package var local = 0
    /// Bodies over HTTP as sent, for the responses whose size as sent is known.
    package var wire = 0
    /// HTTP responses counted (bodies and 304s).
    package var responses = 0
    /// HTTP responses whose size as sent is not known (``WireSize/unknown``), and their decoded bytes.
    package var unknownResponses = 0
    package var unknownDecoded = 0

    package init() {}

    package mutating func add(decoded count: Int, _ size: WireSize) {
        decoded += count
        switch size {
        case .local: local += count
        case .bytes(let bytes):
            responses += 1
            wire += bytes
        case .unknown:
            responses += 1
            unknownResponses += 1
            unknownDecoded += count
        }
    }

    /// Adds what another count moved (a list's pages, say).
    package mutating func add(_ other: TransferBytes) {
        decoded += other.decoded
        local += other.local
        wire += other.wire
        responses += other.responses
        unknownResponses += other.unknownResponses
        unknownDecoded += other.unknownDecoded
    }

    /// Decoded bytes that came over HTTP.
    package var overHTTP: Int { decoded - local }

    /// What the run moved, in one phrase: "4.0 MB (0.5 MB on the wire)"; "422.3 MB read
    /// from local folders" (a folder has no wire); "422.3 MB (on the wire: not known, 4369
    /// compressed response(s) came without Content-Length)"; or both parts when a run read
    /// from a folder and over HTTP.
    package var description: String {
        var parts: [String] = []
        if local > 0 || responses == 0 {
            parts.append(Self.megabytes(local) + " read from local folders")
        }
        if responses > 0 {
            let http = local > 0 ? Self.megabytes(overHTTP) + " over HTTP" : Self.megabytes(overHTTP)
            parts.append(http + " (" + wireDescription + ")")
        }
        return parts.joined(separator: ", ")
    }

    /// "0.5 MB on the wire", or what is known of it when some responses did not say their size.
    package var wireDescription: String {
        guard unknownResponses > 0 else { return Self.megabytes(wire) + " on the wire" }
        let missing = "\(unknownResponses) compressed response(s) came without Content-Length"
        if unknownDecoded == overHTTP { return "on the wire: not known, \(missing)" }
        return "on the wire: \(Self.megabytes(wire)) for the responses that gave their size; \(missing)"
    }

    static func megabytes(_ bytes: Int) -> String {
        String(format: "%.1f MB", Double(bytes) / 1_000_000)
    }
}
