import PokeHTTP
import PokeSyncCore

/// What one request asks for, parsed from its method, path, query and CORS headers
/// alone, as the PokeAPI server (Django REST framework) routes it. No store is needed:
/// whether a kind exists, or a name or id finds a document, is the responder's to resolve
/// against the version it answers from (``APIResponder``), so every shape is testable as
/// a value (<doc:PokeServe/Serving>).
enum Route: Equatable {
    /// A document's key in the path: an id (PokeAPI's `-?[0-9]+`; `+1` is a name), or a
    /// name's ``NameLookup/key(_:)``.
    enum Key: Equatable {
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
    var shape: String {
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

    init(_ request: RequestHead) {
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
        if path.hasPrefix("/sprites/") {
            self = .sprite(path: String(path.dropFirst("/sprites/".count)))
        } else if path.hasPrefix("/cries/") {
            self = .cry(path: String(path.dropFirst("/cries/".count)))
        } else {
            self = Self.api(path, request)
        }
    }

    /// A path below `/api/v2`, decoded.
    private static func api(_ path: String, _ request: RequestHead) -> Route {
        let prefix = APIShape.basePath
        guard path == prefix || path.hasPrefix(APIShape.rootPath) else { return .notFound }
        let rest = path.dropFirst(prefix.count)
        let slashed = rest.hasSuffix("/")
        let segments = rest.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
            .dropLast(slashed ? 1 : 0)
        if segments.contains(where: \.isEmpty) { return .notFound }
        let target: Route
        switch segments.count {
        case 0:
            target = .root
        case 1:
            let kind = ResourceKind(rawValue: String(segments[segments.startIndex]))
            target = kind == .meta ? .meta : .list(kind: kind, page: Pagination(query: request.query))
        case 2:
            let kind = ResourceKind(rawValue: String(segments[segments.startIndex])), key = segments[segments.startIndex + 1]
            // DRF's lookup: one path segment without a dot.
            guard !key.contains(".") else { return .notFound }
            target = .document(kind: kind, key: isID(key) ? Int(key).map(Key.id) ?? .idOutOfRange : .name(NameLookup.key(key)))
        case 3 where segments[segments.startIndex] == ResourceKind.pokemon.apiName
            && segments[segments.startIndex + 2] == ResourceKind.encountersSegment:
            let key = segments[segments.startIndex + 1]
            guard key.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let id = Int(key) else { return .notFound }
            return .encounters(id: id)
        default:
            return .notFound
        }
        guard slashed else {
            return .redirect(location: request.path + "/" + (request.query.map { "?" + $0 } ?? ""), target: target)
        }
        return target
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
