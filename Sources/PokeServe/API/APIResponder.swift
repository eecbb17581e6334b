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
///
/// A body in the cache is answered on the worker's thread. A body that is not (a document
/// read from the store, rendered and gzip'd, up to 2.3 MB plain; a list page or the root
/// made) is made on the server's render threads (``Answer/deferred(_:)``), so the worker's
/// other connections never wait for it.
final class APIResponder: Responder {
    private let site: Site
    /// The store's `PRAGMA data_version` and generation when this worker last looked.
    private var dataVersion: Int?
    private var generation: Int?
    private var lastAsked = -Double.infinity
    /// The version the last look found: what the requests of the next millisecond get,
    /// without the board's lock.
    private var lastSeen: ServedVersion?
    /// When a look at the store last ran (not skipped for a render thread holding it).
    private var lastLooked = -Double.infinity

    init(site: Site) {
        self.site = site
    }

    private static func busy(_ site: Site) -> Reply {
        Reply.detail(.serviceUnavailable, "The server is busy; try again.",
                     headers: [("Retry-After", "1")], memory: site.memory)
    }

    /// The version a request was routed in went away before its body was read (pruned
    /// after a newer one was published): the client asks again.
    private static func changed(_ site: Site) -> Reply {
        Reply.detail(.serviceUnavailable, "The mirror changed during the request; try again.",
                     headers: [("Retry-After", "1")], memory: site.memory)
    }

    private static func unreadable(_ request: RequestHead, _ error: any Error, _ site: Site) -> Reply {
        StandardStreams.write("pokesync: serve: \(request.path): \(error)\n")
        return Reply.detail(.internalServerError, "The mirror's store could not be read.", memory: site.memory)
    }

    /// Whether a new body of `size` bytes may be made now.
    private static func hasRoom(_ size: Int, _ site: Site) -> Bool {
        size <= site.smallBody || site.memory.liveBytes < site.bodyBytesLimit
    }

    func answer(_ request: RequestHead) -> Answer {
        let route = Route(request)
        return answer(route, request).routed(route.shape)
    }

    private func answer(_ route: Route, _ request: RequestHead) -> Answer {
        switch route {
        case .options:
            return .ready(Reply(status: .noContent, headers: [("Allow", Route.allowedMethods)], sendsBody: false))
        case .preflight(let names):
            return .ready(Self.preflight(names))
        case .methodNotAllowed(let method):
            return .ready(Reply.detail(.methodNotAllowed, "Method \"\(method)\" not allowed.",
                                       headers: [("Allow", Route.allowedMethods)], memory: site.memory))
        case .badPath:
            return .ready(Reply.detail(.badRequest, "A malformed path.", memory: site.memory))
        case .sprite(let path):
            // Without a sprite tree, as any other path outside the API: not found.
            if let sprites = site.sprites { return .ready(linkedFile(sprites, path, request)) }
        case .cry(let path):
            if let cries = site.cries { return .ready(linkedFile(cries, path, request)) }
        case .root, .list, .document, .encounters, .meta, .redirect, .notFound:
            break
        }
        for attempt in 0 ..< 2 {
            do {
                let version = try currentVersion(force: attempt > 0)
                return answer(route, request, version)
            } catch where attempt == 0 {
                // The store may have been replaced under the request: its files are looked
                // at now (and it is reopened) before the answer is tried again.
                continue
            } catch {
                return .ready(Self.unreadable(request, error, site))
            }
        }
        return .ready(Self.changed(site))
    }

    /// The served version, looked for again when another connection committed to the
    /// store. A running `sync` commits job by job: those commits cost one query of the
    /// latest version number here; only a new version (or a reopened store) takes the
    /// board's loading lock. `force` also looks at the store's files now.
    private func currentVersion(force: Bool) throws -> ServedVersion {
        // Asked at most once a millisecond per worker (each ask takes SQLite's WAL read
        // lock, an fcntl): a request that arrives a millisecond after a commit sees it,
        // unless a render thread holds the store at that moment (then the next one does).
        let clock = monotonicSeconds()
        if !force, clock - lastAsked < 0.001, let lastSeen { return lastSeen }
        lastAsked = clock
        let version: ServedVersion
        if !force, clock - lastLooked < Self.skippedLooksSeconds, let served = site.board.version {
            // With a version in hand, the look is skipped while a render thread holds the
            // store: a worker does not wait for it, for a few milliseconds at most.
            if let looked = try site.keeper.useIfFree({ store, generation in try look(store, generation, force: false) }) {
                version = looked
                lastLooked = clock
            } else {
                version = served
            }
        } else {
            version = try site.keeper.use(recheck: force) { store, generation in try look(store, generation, force: force) }
            lastLooked = clock
        }
        lastSeen = version
        return version
    }

    /// How long the version looks may be skipped because a render thread holds the store:
    /// past it, the worker waits for the store (a publish is seen within this of a request).
    static let skippedLooksSeconds = 0.005

    /// ``currentVersion(force:)``'s look at the store: the version its latest commit serves.
    private func look(_ store: Store, _ generation: Int, force: Bool) throws -> ServedVersion {
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

    // MARK: Routing

    /// `route` answered from `version`: what the route names is looked for in it.
    private func answer(_ route: Route, _ request: RequestHead, _ version: ServedVersion) -> Answer {
        switch route {
        case .root:
            return root(request, version)
        case .list(let kind, let page):
            guard let listed = version.kinds[kind] else { return .ready(notFound(version)) }
            return list(listed, page, request, version)
        case .document, .encounters, .meta:
            guard let hash = Self.documentHash(route, in: version) else { return .ready(notFound(version)) }
            return document(route, hash, request, version)
        case .redirect(let location, let target):
            return .ready(Self.serves(target, version) ? redirect(location) : notFound(version))
        case .notFound, .sprite, .cry, .options, .preflight, .methodNotAllowed, .badPath:
            // The last six are answered before a version is needed (`answer(_:_:)`); a
            // linked file's route without its tree is an unknown path.
            return .ready(notFound(version))
        }
    }

    /// The stored document `route` names in `version`, if it holds it (nil for a route
    /// that names no document).
    private static func documentHash(_ route: Route, in version: ServedVersion) -> SHA256Digest? {
        switch route {
        case .document(let kind, let key):
            guard let listed = version.kinds[kind] else { return nil }
            let index: Int?
            switch key {
            case .id(let id): index = listed.byID[id]
            case .name(let name): index = listed.byName[name]
            case .idOutOfRange: index = nil
            }
            return index.map { listed.entries[$0].hash }
        case .encounters(let id):
            return version.encounters[id]
        case .meta:
            return version.meta
        case .root, .list, .redirect, .notFound, .sprite, .cry, .options, .preflight, .methodNotAllowed, .badPath:
            return nil
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

    private func notFound(_ version: ServedVersion) -> Reply { Self.notFound(version, site) }

    private static func notFound(_ version: ServedVersion, _ site: Site) -> Reply {
        Reply.detail(.notFound, "Not found.", headers: [("X-PokeAPI-Hash", version.tag)], memory: site.memory)
    }

    // MARK: Bodies

    /// The cache key of document `hash` as `version` serves it. With --sprite-base a body
    /// depends on the files its version holds too: its key and ETag are of both, so a
    /// version holding other files never gets it.
    private static func served(_ hash: SHA256Digest, _ version: ServedVersion, _ form: ServedForm) -> SHA256Digest {
        form.rewritesLinks ? SHA256.hash(hash.bytes + version.links.tag) : hash
    }

    /// A document's answer: from the cache, or made on a render thread.
    private func document(_ route: Route, _ hash: SHA256Digest, _ request: RequestHead, _ version: ServedVersion) -> Answer {
        if let reply = cached(.document(Self.served(hash, version, site.form)), request, version) { return .ready(reply) }
        return .deferred { [site] in Self.madeDocument(route, hash, request, version, site) }
    }

    /// What a render thread read of a document.
    private enum Read {
        case document(DeflatedDocument)
        /// The version was pruned since the request was routed in it; the newest.
        case gone(newest: ServedVersion)
    }

    /// A document's body read from the store, rendered, gzip'd and kept, then its reply (on
    /// a render thread). The store's connection is held only for the read: inflating,
    /// rendering and compressing happen outside it.
    private static func madeDocument(_ route: Route, _ hash: SHA256Digest, _ request: RequestHead,
                                     _ version: ServedVersion, _ site: Site) -> Reply {
        var (hash, version) = (hash, version)
        let plain = !acceptsGzip(request.acceptEncoding)
        for attempt in 0 ..< 3 {
            let served = served(hash, version, site.form), key = BodyKey.document(served)
            if let kept = kept(key, plain: plain, request, version, site) { return kept }
            let read: Read
            do {
                read = try site.keeper.use(recheck: attempt > 0) { store, generation in
                    let stored = try store.snapshot {
                        try store.retains(version: version.number) ? try store.deflatedDocument(hash) : nil
                    }
                    if let stored { return .document(stored) }
                    return .gone(newest: try site.board.refresh(store: store, generation: generation))
                }
            } catch where attempt == 0 {
                // The store may have been replaced under the request: its files are looked
                // at now (and it is reopened) before the read is tried again.
                continue
            } catch {
                return unreadable(request, error, site)
            }
            switch read {
            case .gone(let newest):
                // Answered again from the newest, as a request that came a moment later.
                guard let found = documentHash(route, in: newest) else { return notFound(newest, site) }
                (hash, version) = (found, newest)
            case .document(let stored):
                guard hasRoom(stored.size, site) else { return busy(site) }
                let canonical: [UInt8]
                do {
                    canonical = try stored.body()
                } catch where attempt == 0 {
                    // Bytes that do not inflate or match their hash: read once more after
                    // looking at the store's files, in case it was replaced under the read.
                    continue
                } catch {
                    return unreadable(request, error, site)
                }
                let body = RenderedBody(plain: site.form.render(canonical, held: version.links), etag: "\"\(served.hex)\"",
                                        memory: site.memory)
                keep(body, key, plain: plain, site)
                return reply(body, request, version)
            }
        }
        return changed(site)
    }

    private func root(_ request: RequestHead, _ version: ServedVersion) -> Answer {
        let key = BodyKey.root(version: version.tag)
        if let reply = cached(key, request, version) { return .ready(reply) }
        return .deferred { [site] in Self.made(Self.rootText(version, site.form), key, request, version, site) }
    }

    private func list(_ kind: ServedVersion.Kind, _ page: Pagination, _ request: RequestHead,
                      _ version: ServedVersion) -> Answer {
        let key = BodyKey.page(version: version.tag, kind: kind.name, offset: page.offset, limit: page.limit,
                               others: page.othersQuery)
        if let reply = cached(key, request, version) { return .ready(reply) }
        return .deferred { [site] in Self.made(Self.pageText(kind, page, site.form), key, request, version, site) }
    }

    /// The root's JSON: each endpoint's name and absolute URL.
    private static func rootText(_ version: ServedVersion, _ form: ServedForm) -> String {
        "{" + version.endpoints.map { "\(jsonString($0.apiName)):\(jsonString(form.url($0.endpointPath)))" }.joined(separator: ",") + "}"
    }

    /// A list page's JSON, as Django REST framework's limit-offset pagination writes it.
    private static func pageText(_ kind: ServedVersion.Kind, _ page: Pagination, _ form: ServedForm) -> String {
        let resource = kind.name
        let listURL = form.url(resource.endpointPath)
        var text = "{\"count\":\(kind.entries.count),\"next\":"
        text += page.nextQuery(count: kind.entries.count).map { jsonString(listURL + "?" + $0) } ?? "null"
        text += ",\"previous\":" + (page.previousQuery.map { jsonString(listURL + "?" + $0) } ?? "null")
        text += ",\"results\":["
        for (position, entry) in kind.entries[page.range(count: kind.entries.count)].enumerated() {
            if position > 0 { text += "," }
            if let name = entry.name { text += "{\"name\":\(jsonString(name)),\"url\":" } else { text += "{\"url\":" }
            text += jsonString(form.url(resource.documentPath(id: entry.id))) + "}"
        }
        return text + "]}"
    }

    /// A body made here (root, list page), with its SHA-256 as entity tag, kept, then its
    /// reply (on a render thread). `text` is made only when the cache has nothing to give.
    private static func made(_ text: @autoclosure () -> String, _ key: BodyKey, _ request: RequestHead,
                             _ version: ServedVersion, _ site: Site) -> Reply {
        let plain = !acceptsGzip(request.acceptEncoding)
        if let kept = kept(key, plain: plain, request, version, site) { return kept }
        let bytes = Array(text().utf8)
        guard hasRoom(bytes.count, site) else { return busy(site) }
        let body = RenderedBody(plain: bytes, etag: "\"\(SHA256.hash(bytes).hex)\"", memory: site.memory)
        keep(body, key, plain: plain, site)
        return reply(body, request, version)
    }

    /// The cache's answer, looked at again on a render thread: a body made meanwhile for
    /// another request asking for it at the same time, or for a client that does not take
    /// gzip, the plain bytes inflated from a body kept gzip'd only.
    private static func kept(_ key: BodyKey, plain: Bool, _ request: RequestHead, _ version: ServedVersion,
                             _ site: Site) -> Reply? {
        if let body = site.cache.peek(key, plain: plain) { return reply(body, request, version) }
        if plain, let whole = withKeptPlain(key, site) { return reply(whole, request, version) }
        return nil
    }

    /// The body of `key` kept for gzip only, with its plain bytes inflated from the gzip'd
    /// ones, and kept so; nil when there is no such body, or no room for it now.
    private static func withKeptPlain(_ key: BodyKey, _ site: Site) -> RenderedBody? {
        guard let kept = site.cache.peek(key, plain: false), hasRoom(kept.plainCount, site),
              let whole = kept.withPlain(memory: site.memory) else { return nil }
        keep(whole, key, plain: true, site)
        return whole
    }

    /// Keeps a body just made in the cache: whole when its client asked for the plain
    /// bytes, without them when it took gzip (``RenderedBody/gzipOnly()``).
    private static func keep(_ body: RenderedBody, _ key: BodyKey, plain: Bool, _ site: Site) {
        site.cache.put(key, plain ? body : body.gzipOnly() ?? body)
    }

    /// 200 with the body (gzip'd when accepted), or 304 when the client has it: in the
    /// representation it would get, or in the plain one (a cache holding the plain body
    /// may keep using it; RFC 9111, 4.3.4), with the tag of the one it holds. `body` has
    /// its plain bytes when the client does not take gzip (the cache's `plain:`), and a
    /// body without them always has its gzip'd ones.
    private static func reply(_ body: RenderedBody, _ request: RequestHead, _ version: ServedVersion) -> Reply {
        if let notModified = notModified(body, request, version) { return notModified }
        let gzip = Self.acceptsGzip(request.acceptEncoding) ? body.gzip : nil
        // Its head made ahead, in three pieces: the body's (`RenderedBody.headers`), the
        // version's `X-PokeAPI-Hash`, the coding's `Content-Encoding` and the default headers.
        if let compressed = gzip, let head = body.gzipHead {
            return Reply(status: .ok, prepared: PreparedHead(head, version.tagLine, Self.gzipLines), body: compressed,
                         sendsBody: !request.isHead)
        }
        guard let plain = body.plain else { preconditionFailure("a body kept for gzip only answered a client that does not take it") }
        return Reply(status: .ok, prepared: PreparedHead(body.plainHead, version.tagLine, Self.plainLines), body: plain,
                     sendsBody: !request.isHead)
    }

    /// 304 when the client holds `body` (its tags are all it takes: a body kept for gzip
    /// only answers a client that does not take gzip so), else nil.
    private static func notModified(_ body: RenderedBody, _ request: RequestHead, _ version: ServedVersion) -> Reply? {
        guard let tags = request.ifNoneMatch else { return nil }
        // The gzip one only for a client that takes gzip.
        let selected = Self.acceptsGzip(request.acceptEncoding) ? body.gzipETag ?? body.etag : body.etag
        guard let held = [selected, body.etag].first(where: { Self.matches(tags, $0) }) else { return nil }
        // A 304 has no body, so no Content-Type; its tag is the one the client holds.
        let headers = RenderedBody.headers(etag: held).filter { $0.0 != "Content-Type" } + [("X-PokeAPI-Hash", version.tag)]
        return Reply(status: .notModified, headers: headers, sendsBody: false)
    }

    /// A cached body's answer, made on the worker, when the cache holds what it takes: the
    /// coding the client gets, or for a 304 only the tags.
    private func cached(_ key: BodyKey, _ request: RequestHead, _ version: ServedVersion) -> Reply? {
        let plain = !Self.acceptsGzip(request.acceptEncoding)
        if let body = site.cache.get(key, plain: plain) { return Self.reply(body, request, version) }
        if plain, request.ifNoneMatch != nil, let kept = site.cache.peek(key, plain: false) {
            return Self.notModified(kept, request, version)
        }
        return nil
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
        guard site.memory.liveBytes < site.bodyBytesLimit else { return Self.busy(site) }
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
