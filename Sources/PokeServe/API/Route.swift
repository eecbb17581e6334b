import PokeHTTP
import PokeSyncCore

/// What one request asks for, parsed from its method, path, query and CORS headers
/// alone, as the PokeAPI server (Django REST framework) routes it. No store is needed:
/// whether a kind exists, or a name or id finds a document, is the responder's to resolve
/// against the version it answers from (``APIResponder``), so every shape is testable as
/// a value (<doc:PokeServe/Serving>).
enum Route: Equatable, Sendable {
    /// A document's key in the path: an id (PokeAPI's `-?[0-9]+`; `+1` is a name), or a
    /// name's ``NameLookup/key(_:)``.
    enum Key: Equatable, Sendable {
        case id(Int)
        /// An id past `Int`'s range: no document has it.
        case idOutOfRange
        case name(String)
    }

    /// `/api/v2/`.
    case root
    /// `/api/v2/{kind}/?limit=L&offset=O`.
    case list(kind: ResourceKind, page: Pagination)
    /// `/api/v2/{kind}/{id or name}/`.
    case document(kind: ResourceKind, key: Key)
    /// `/api/v2/pokemon/{id}/encounters`, with or without the slash (PokeAPI's route has
    /// no trailing `$`), by id only.
    case encounters(id: Int)
    /// `/api/v2/meta/`.
    case meta
    /// Django's APPEND_SLASH: a permanent redirect to `location` (the path as sent with a
    /// slash, then the query) when the version serves `target`, else not found.
    indirect case redirect(location: String, target: Route)
    /// A file of the sprite tree (`/sprites/...`), its path below it, decoded.
    case sprite(path: String)
    /// A file of the cries tree (`/cries/...`), its path below it, decoded.
    case cry(path: String)
    /// `OPTIONS` without a CORS preflight's headers: told the methods.
    case options
    /// A CORS preflight (`Origin` and `Access-Control-Request-Method`): the field names
    /// it asked for that are allowed, lowercased, in order.
    case preflight(allowHeaders: [String])
    /// Any method but GET, HEAD and OPTIONS.
    case methodNotAllowed(method: String)
    /// A path whose percent escapes are malformed.
    case badPath
    case notFound

    /// The route's case, as the metrics count answers (`pokesync_serve_requests_total`'s
    /// `route` label): a few fixed names, never anything a client chose.
    var shape: StaticString {
        switch self {
        case .root: return "root"
        case .list: return "list"
        case .document: return "document"
        case .encounters: return "encounters"
        case .meta: return "meta"
        case .redirect: return "redirect"
        case .sprite: return "sprite"
        case .cry: return "cry"
        case .options: return "options"
        case .preflight: return "preflight"
        case .methodNotAllowed: return "method_not_allowed"
        case .badPath: return "bad_path"
        case .notFound: return "not_found"
        }
    }

    /// The methods served, as `Allow` and `Access-Control-Allow-Methods` say them.
    static let allowedMethods = "GET, HEAD, OPTIONS"

    init(_ request: borrowing RequestHead) {
        if request.method == "OPTIONS" {
            self = request.origin != nil && request.corsMethod != nil
                ? .preflight(allowHeaders: Self.allowedHeaders(request.corsHeaders)) : .options
            return
        }
        guard request.isGetOrHead else {
            self = .methodNotAllowed(method: request.method)
            return
        }
        guard let path = percentDecoded(request.path) else {
            self = .badPath
            return
        }
        if Self.starts(path, with: "/sprites/") {
            self = .sprite(path: String(path.dropFirst("/sprites/".count)))
        } else if Self.starts(path, with: "/cries/") {
            self = .cry(path: String(path.dropFirst("/cries/".count)))
        } else {
            self = Self.api(path, request)
        }
    }

    /// Whether `text` begins with `prefix`'s bytes, compared in place.
    private static func starts(_ text: String, with prefix: StaticString) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            guard bytes.count >= prefix.utf8CodeUnitCount else { return false }
            for index in 0 ..< prefix.utf8CodeUnitCount where bytes[index] != prefix.utf8Start[index] { return false }
            return true
        }
    }

    /// A path below `/api/v2`, decoded. Split at its bytes `/` (as Django's patterns match
    /// it), not at its characters: no grapheme is looked for in a request's path, and
    /// nothing is made of it but the kind's and the key's text.
    private static func api(_ path: String, _ request: RequestHead) -> Route {
        var path = path
        guard let (target, slashed) = path.withUTF8({ apiTarget($0, request) }) else { return .notFound }
        guard slashed else {
            return .redirect(location: request.path + "/" + (request.query.map { "?" + $0 } ?? ""), target: target)
        }
        return target
    }

    /// What the path's bytes below `/api/v2` name (an encounters route whatever its slash),
    /// and whether the path ends with a slash; nil for a path that names nothing.
    private static func apiTarget(_ bytes: UnsafeBufferPointer<UInt8>, _ request: RequestHead) -> (Route, slashed: Bool)? {
        let slash = UInt8(ascii: "/"), prefix = APIShape.rootPathBytes.count - 1  // `/api/v2`
        guard bytes.count >= prefix else { return nil }
        for index in 0 ..< prefix where bytes[index] != APIShape.rootPathBytes[index] { return nil }
        guard bytes.count == prefix || bytes[prefix] == slash else { return nil }
        let slashed = bytes.last == slash
        // The segments after `/api/v2/`, the empty one after a last slash left out: none
        // for `/api/v2` and `/api/v2/`; an empty one, or more than three, name nothing.
        var segments = (0 ..< 0, 0 ..< 0, 0 ..< 0), count = 0
        if bytes.count > prefix + 1 {
            let end = slashed ? bytes.count - 1 : bytes.count
            var start = prefix + 1
            while true {
                var stop = start
                while stop < end && bytes[stop] != slash { stop += 1 }
                guard stop > start else { return nil }
                count += 1
                switch count {
                case 1: segments.0 = start ..< stop
                case 2: segments.1 = start ..< stop
                case 3: segments.2 = start ..< stop
                default: return nil
                }
                if stop == end { break }
                start = stop + 1
            }
        }
        func text(_ range: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) }
        switch count {
        case 0:
            return (.root, slashed)
        case 1:
            let kind = ResourceKind(rawValue: text(segments.0))
            return (kind == .meta ? .meta : .list(kind: kind, page: Pagination(query: request.query)), slashed)
        case 2:
            // DRF's lookup: one path segment without a dot.
            guard !bytes[segments.1].contains(UInt8(ascii: ".")) else { return nil }
            let key = Substring(text(segments.1))
            return (.document(kind: ResourceKind(rawValue: text(segments.0)),
                              key: isID(key) ? Int(key).map(Key.id) ?? .idOutOfRange : .name(NameLookup.key(key))), slashed)
        default:
            guard text(segments.0) == ResourceKind.pokemon.apiName && text(segments.2) == ResourceKind.encountersSegment,
                  bytes[segments.1].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let id = Int(text(segments.1)) else { return nil }
            // Answered with or without the slash: never redirected.
            return (.encounters(id: id), true)
        }
    }

    /// PokeAPI's id pattern (`-?[0-9]+`): anything else in an id's place is a name.
    static func isID(_ key: Substring) -> Bool {
        let digits = key.utf8.first == UInt8(ascii: "-") ? key.utf8.dropFirst() : key.utf8[...]
        return !digits.isEmpty && digits.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// Every field name a preflight asked for (tokens only, so nothing else is echoed, at
    /// most 32 of at most 64 bytes): the API is public and read-only, so no header a
    /// browser app sends needs refusing.
    static func allowedHeaders(_ header: String?) -> [String] {
        var names: [String] = []
        for item in (header ?? "").split(separator: ",") {
            let name = item.trimmingSpaces.lowercased()
            guard !name.isEmpty, name.utf8.count <= 64, name.utf8.allSatisfy(RequestHeadScanner.isTokenByte),
                  !names.contains(name), names.count < 32 else { continue }
            names.append(name)
        }
        return names
    }
}
