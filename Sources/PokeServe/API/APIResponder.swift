import Foundation
import PokeArchive
import PokeHTTP
import PokeSyncCore

/// What every worker's responder shares: the served form, the body cache, the version
/// board and the sprite tree.
struct Site: Sendable {
    let form: ServedForm
    let cache: BodyCache
    let board: VersionBoard
    let sprites: SpriteFiles?
    /// The cries tree, served at `/cries/` beside the sprites (`--sprite-base`).
    let cries: SpriteFiles?
    let layout: MirrorLayout
    /// The store, shared by the workers, reopened when replaced under the server.
    let keeper: StoreKeeper
    /// Past this many bytes of bodies alive (cached and being written), a request that
    /// would make a new body bigger than `smallBody` is answered 503 (Retry-After: 1)
    /// instead. The workers shed stalled connections well before (`HTTPLimits.shedBytes`),
    /// so this is reached only when memory is short indeed.
    let bodyBytesLimit: Int
    /// A new body at most this big is made whatever the bodies alive: a small document or
    /// page is never refused (``HTTPLimits/smallBodyBytes``).
    var smallBody = HTTPLimits().smallBodyBytes
    /// Seconds a client may reuse a body without asking again (then `If-None-Match`).
    static let maxAge = 300
    /// Where every body serve makes is counted while it lives, with the heads the servers
    /// write: what `bodyBytesLimit` and the servers' `HTTPLimits.shedBytes` are checked against.
    let memory: MemoryBudget
}

/// Routes one request as the PokeAPI server (Django REST framework) does and answers it
/// from one version. One per worker; the store is the site's (``StoreKeeper``).
final class APIResponder: Responder {
    private let site: Site
    /// The store's `PRAGMA data_version` and generation when this worker last looked.
    private var dataVersion: Int?
    private var generation: Int?
    private var lastAsked = -Double.infinity

    init(site: Site) {
        self.site = site
    }

    /// A version's documents went away under the request (pruned after a newer one was
    /// published): it is answered again from the newest.
    private struct VersionGoneError: Error {}

    /// The bodies alive are at their bound: a new one is not made now.
    private struct MemoryFullError: Error {}

    private func busy() -> Reply {
        Reply.detail(.serviceUnavailable, "The server is busy; try again.",
                     headers: [("Retry-After", "1")], memory: site.memory)
    }

    /// Whether a new body of `size` bytes may be made now.
    private func checkRoom(_ size: Int) throws {
        guard size <= site.smallBody || site.memory.liveBytes < site.bodyBytesLimit else { throw MemoryFullError() }
    }

    func respond(to request: RequestHead) -> Reply {
        let route = Route(request)
        var reply = answer(route, request)
        reply.route = route.shape
        return reply
    }

    private func answer(_ route: Route, _ request: RequestHead) -> Reply {
        switch route {
        case .options:
            return Reply(status: .noContent, headers: [("Allow", Route.allowedMethods)],
                         sendsBody: false)
        case .preflight(let names):
            return Self.preflight(names)
        case .methodNotAllowed(let method):
            return Reply.detail(.methodNotAllowed, "Method \"\(method)\" not allowed.",
                                headers: [("Allow", Route.allowedMethods)], memory: site.memory)
        case .badPath:
            return Reply.detail(.badRequest, "A malformed path.", memory: site.memory)
        case .sprite(let path):
            // Without a sprite tree, as any other path outside the API: not found.
            if let sprites = site.sprites { return linkedFile(sprites, path, request) }
        case .cry(let path):
            if let cries = site.cries { return linkedFile(cries, path, request) }
        case .root, .list, .document, .encounters, .meta, .redirect, .notFound:
            break
        }
        for attempt in 0 ..< 2 {
            do {
                let version = try currentVersion(force: attempt > 0)
                return try answer(route, request, version)
            } catch is VersionGoneError {
                continue
            } catch is MemoryFullError {
                return busy()
            } catch where attempt == 0 {
                // The store may have been replaced under the request: its files are looked
                // at now (and it is reopened) before the answer is tried again.
                continue
            } catch {
                StandardStreams.write("pokesync: serve: \(request.path): \(error)\n")
                return Reply.detail(.internalServerError, "The mirror's store could not be read.", memory: site.memory)
            }
        }
        return Reply.detail(.serviceUnavailable, "The mirror changed during the request; try again.",
                            headers: [("Retry-After", "1")], memory: site.memory)
    }

    /// The served version, looked for again when another connection committed to the
    /// store. A running `sync` commits job by job: those commits cost one query of the
    /// latest version number here; only a new version (or a reopened store) takes the
    /// board's loading lock. `force` also looks at the store's files now.
    private func currentVersion(force: Bool) throws -> ServedVersion {
        // Asked at most once a millisecond per worker (each ask takes SQLite's WAL read
        // lock, an fcntl): a request that arrives a millisecond after a commit sees it.
        let clock = monotonicSeconds()
        if !force, clock - lastAsked < 0.001, let version = site.board.version { return version }
        lastAsked = clock
        return try site.keeper.use(recheck: force) { store, generation in
            let now = try store.dataVersion()
            let same = !force && generation == self.generation
            if same, now == dataVersion, let version = site.board.version { return version }
            // Taken as seen only once the version it may bring is in hand: a refresh that
            // throws (a busy or unreadable store) is tried again by the next request.
            if same, let version = site.board.version, try store.latestVersionNumber() == version.number {
                dataVersion = now
                return version
            }
            let version = try site.board.refresh(store: store, generation: generation)
            dataVersion = now
            self.generation = generation
            return version
        }
    }

    // MARK: Routing

    /// `route` answered from `version`: what the route names is looked for in it.
    private func answer(_ route: Route, _ request: RequestHead, _ version: ServedVersion) throws -> Reply {
        switch route {
        case .root:
            return try root(request, version)
        case .list(let kind, let page):
            guard let listed = version.kinds[kind] else { return notFound(version) }
            return try list(listed, page, request, version)
        case .document(let kind, let key):
            guard let listed = version.kinds[kind] else { return notFound(version) }
            let index: Int?
            switch key {
            case .id(let id): index = listed.byID[id]
            case .name(let name): index = listed.byName[name]
            case .idOutOfRange: index = nil
            }
            guard let index else { return notFound(version) }
            return try document(listed.entries[index].hash, request, version)
        case .encounters(let id):
            guard let hash = version.encounters[id] else { return notFound(version) }
            return try document(hash, request, version)
        case .meta:
            guard let meta = version.meta else { return notFound(version) }
            return try document(meta, request, version)
        case .redirect(let location, let target):
            return Self.serves(target, version) ? redirect(location) : notFound(version)
        case .notFound, .sprite, .cry, .options, .preflight, .methodNotAllowed, .badPath:
            // The last six are answered before a version is needed (`answer(_:_:)`); a
            // linked file's route without its tree is an unknown path.
            return notFound(version)
        }
    }

    /// Whether `version` has what `route` names, as far as a redirect to it depends on:
    /// the root, a kind it lists, meta when it holds it.
    private static func serves(_ route: Route, _ version: ServedVersion) -> Bool {
        switch route {
        case .root: return true
        case .list(let kind, _), .document(let kind, _): return version.kinds[kind] != nil
        case .meta: return version.meta != nil
        case .encounters, .redirect, .sprite, .cry, .options, .preflight, .methodNotAllowed, .badPath, .notFound: return false
        }
    }

    /// Django's APPEND_SLASH: a permanent redirect to the slashed path, query kept,
    /// as an absolute URL on the base.
    private func redirect(_ location: String) -> Reply {
        Reply(status: .movedPermanently, headers: [("Location", site.form.url(location)),
                                     ("Content-Type", "text/html; charset=utf-8")])
    }

    private func notFound(_ version: ServedVersion) -> Reply {
        Reply.detail(.notFound, "Not found.", headers: [("X-PokeAPI-Hash", version.tag)], memory: site.memory)
    }

    // MARK: Bodies

    private func document(_ hash: SHA256Digest, _ request: RequestHead, _ version: ServedVersion) throws -> Reply {
        // With --sprite-base a body depends on the files its version holds too: its cache
        // key and ETag are of both, so a version holding other files never gets it.
        let served = site.form.rewritesLinks ? SHA256.hash(hash.bytes + version.links.tag) : hash
        let key = BodyKey.document(served)
        if let body = site.cache.get(key) { return reply(body, request, version) }
        let canonical: [UInt8]? = try site.keeper.use { store, _ in
            try store.snapshot {
                guard try store.retains(version: version.number) else { return nil }
                return try store.documentBody(hash)
            }
        }
        guard let canonical else { throw VersionGoneError() }
        try checkRoom(canonical.count)
        let body = RenderedBody(plain: site.form.render(canonical, held: version.links), etag: "\"\(served.hex)\"",
                                memory: site.memory)
        site.cache.put(key, body)
        return reply(body, request, version)
    }

    private func root(_ request: RequestHead, _ version: ServedVersion) throws -> Reply {
        let key = BodyKey.root(version: version.tag)
        if let body = site.cache.get(key) { return reply(body, request, version) }
        let members = version.endpoints.map { "\(jsonString($0.apiName)):\(jsonString(site.form.url($0.endpointPath)))" }
        let text = "{" + members.joined(separator: ",") + "}"
        try checkRoom(text.utf8.count)
        let body = tagged(text)
        site.cache.put(key, body)
        return reply(body, request, version)
    }

    private func list(_ kind: ServedVersion.Kind, _ page: Pagination, _ request: RequestHead,
                      _ version: ServedVersion) throws -> Reply {
        let key = BodyKey.page(version: version.tag, kind: kind.name, offset: page.offset, limit: page.limit,
                               others: page.othersQuery)
        if let body = site.cache.get(key) { return reply(body, request, version) }
        let resource = kind.name
        let listURL = site.form.url(resource.endpointPath)
        var text = "{\"count\":\(kind.entries.count),\"next\":"
        text += page.nextQuery(count: kind.entries.count).map { jsonString(listURL + "?" + $0) } ?? "null"
        text += ",\"previous\":" + (page.previousQuery.map { jsonString(listURL + "?" + $0) } ?? "null")
        text += ",\"results\":["
        for (position, entry) in kind.entries[page.range(count: kind.entries.count)].enumerated() {
            if position > 0 { text += "," }
            if let name = entry.name { text += "{\"name\":\(jsonString(name)),\"url\":" } else { text += "{\"url\":" }
            text += jsonString(site.form.url(resource.documentPath(id: entry.id))) + "}"
        }
        text += "]}"
        try checkRoom(text.utf8.count)
        let body = tagged(text)
        site.cache.put(key, body)
        return reply(body, request, version)
    }

    /// A body made here (root, list page) with its SHA-256 as entity tag.
    private func tagged(_ text: String) -> RenderedBody {
        let bytes = Array(text.utf8)
        return RenderedBody(plain: bytes, etag: "\"\(SHA256.hash(bytes).hex)\"", memory: site.memory)
    }

    /// 200 with the body (gzip'd when accepted), or 304 when the client has it: in the
    /// representation it would get, or in the plain one (a cache holding the plain body
    /// may keep using it; RFC 9111, 4.3.4), with the tag of the one it holds.
    private func reply(_ body: RenderedBody, _ request: RequestHead, _ version: ServedVersion) -> Reply {
        let gzip = Self.acceptsGzip(request.acceptEncoding) ? body.gzip : nil
        if let tags = request.ifNoneMatch {
            // The gzip one only for a client that takes gzip.
            let selected = gzip == nil ? body.etag : body.gzipETag ?? body.etag
            if let held = [selected, body.etag].first(where: { Self.matches(tags, $0) }) {
                // A 304 has no body, so no Content-Type; its tag is the one the client holds.
                let headers = RenderedBody.headers(etag: held).filter { $0.0 != "Content-Type" } + [("X-PokeAPI-Hash", version.tag)]
                return Reply(status: .notModified, headers: headers, sendsBody: false)
            }
        }
        // Its head made ahead, in three pieces: the body's (`RenderedBody.headers`), the
        // version's `X-PokeAPI-Hash`, the coding's `Content-Encoding` and the default headers.
        if let compressed = gzip, let head = body.gzipHead {
            return Reply(status: .ok, prepared: PreparedHead(head, version.tagLine, Self.gzipLines), body: compressed,
                         sendsBody: !request.isHead)
        }
        return Reply(status: .ok, prepared: PreparedHead(body.plainHead, version.tagLine, Self.plainLines), body: body.plain,
                     sendsBody: !request.isHead)
    }

    /// The lines after `X-PokeAPI-Hash` of a cached body's 200 in each coding: its
    /// `Content-Encoding`, then the default headers every answer carries (none of them a
    /// header of the body's: checked once, when first used).
    static let plainLines = prepared(PokeServer.defaultHeaders)
    static let gzipLines = prepared([("Content-Encoding", "gzip")] + PokeServer.defaultHeaders)

    private static func prepared(_ headers: [(String, String)]) -> ByteBuffer {
        let own = Set((RenderedBody.headers(etag: "") + [("X-PokeAPI-Hash", ""), ("Content-Encoding", "")]).map(\.0))
        precondition(PokeServer.defaultHeaders.allSatisfy { !own.contains($0.0) }, "a default header a body's head sets")
        return ByteBuffer(PreparedHead.lines(nil, headers), countedIn: MemoryBudget())
    }

    /// A CORS preflight allows the methods served and the headers asked for
    /// (``Route/allowedHeaders(_:)``), for a day (<doc:PokeServe/Serving>).
    static func preflight(_ names: [String]) -> Reply {
        var headers = [("Access-Control-Allow-Methods", Route.allowedMethods)]
        if !names.isEmpty { headers.append(("Access-Control-Allow-Headers", names.joined(separator: ", "))) }
        headers.append(("Access-Control-Max-Age", "86400"))
        return Reply(status: .noContent, headers: headers, sendsBody: false)
    }

    /// A file of the sprite or cries tree, unless the bodies alive are at their bound.
    private func linkedFile(_ files: SpriteFiles, _ path: String, _ request: RequestHead) -> Reply {
        guard site.memory.liveBytes < site.bodyBytesLimit else { return busy() }
        guard let bytes = files.read(path) else {
            return Reply.detail(.notFound, "Not found.", memory: site.memory)
        }
        let etag = "\"\(SHA256.hash(bytes).hex)\""
        var headers = [("Content-Type", SpriteFiles.contentType(path)), ("ETag", etag),
                       ("Cache-Control", "public, max-age=86400")]
        if let tags = request.ifNoneMatch, Self.matches(tags, etag) {
            headers.removeAll { $0.0 == "Content-Type" }
            return Reply(status: .notModified, headers: headers, sendsBody: false)
        }
        return Reply(status: .ok, headers: headers, body: ByteBuffer(bytes, countedIn: site.memory), sendsBody: !request.isHead)
    }

    // MARK: Headers

    /// `If-None-Match`: `*`, or a list of entity tags compared weakly (RFC 9110, 13.1.2).
    static func matches(_ header: String, _ etag: String) -> Bool {
        for candidate in header.split(separator: ",") {
            var tag = candidate.trimmingSpaces
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
            if tag == etag { return true }
        }
        return false
    }

    /// `Accept-Encoding` names gzip (or `*`) with a quality above 0.
    static func acceptsGzip(_ header: String?) -> Bool {
        guard let header else { return false }
        // `gzip` as the first item, without a quality (what wrk, curl --compressed and the
        // browsers send): the answer is yes, known from the bytes in place, without a
        // lowercased copy of the list.
        var copy = header
        let usual = copy.withUTF8 { bytes in
            bytes.count >= 4 && bytes[0] == 0x67 && bytes[1] == 0x7A && bytes[2] == 0x69 && bytes[3] == 0x70
                && (bytes.count == 4 || bytes[4] == UInt8(ascii: ","))
        }
        if usual { return true }
        var star: Bool?
        for item in header.lowercased().split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingSpaces }
            guard let coding = parts.first else { continue }
            var quality = 1.0
            for parameter in parts.dropFirst() where parameter.hasPrefix("q=") {
                quality = Double(parameter.dropFirst(2)) ?? 1
            }
            if coding == "gzip" || coding == "x-gzip" { return quality > 0 }
            if coding == "*" { star = quality > 0 }
        }
        return star ?? false
    }
}
