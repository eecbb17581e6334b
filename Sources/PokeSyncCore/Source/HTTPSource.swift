import Foundation

/// A PokeAPI-compatible HTTP API, e.g. `https://pokeapi.co/api/v2`.
///
/// Lists are asked for in one page (`limit` has no upper cap on pokeapi.co) and any
/// `next` link is followed; documents are fetched at `{base}/{kind}/{id}/` (the slashed
/// path, so the server's 301 is not needed), conditionally when the store has validators.
package struct HTTPSource: DocumentSource {
    package let base: URL
    package let client: HTTPClient
    /// The part of absolute URLs in documents that is stripped ("https://pokeapi.co").
    let stripPrefix: String

    /// Resources asked for per list page: by default every kind in one page (the real
    /// API has no upper cap); `next` links are followed all the same.
    let pageLimit: Int

    package var description: String { base.absoluteString }

    package var attemptDeadline: Int? { client.configuration.attemptDeadline }

    /// - Parameter base: the API base, ending in `/api/v2` (a trailing slash is ignored).
    package init(base: URL, client: HTTPClient, pageLimit: Int = 100_000) {
        var text = base.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        self.base = URL(string: text)!
        self.client = client
        self.pageLimit = max(1, pageLimit)
        self.stripPrefix = text.hasSuffix(APIShape.basePath) ? String(text.dropLast(APIShape.basePath.count)) : text
    }

    package func rootIndex() async throws -> RootIndex {
        let url = URL(string: base.absoluteString + "/")!
        return try await client.fetch(url) { response in
            guard response.status == 200 else {
                if [400, 404, 410].contains(response.status) {
                    throw SourceError(resource: url.absoluteString,
                                      reason: "no PokeAPI v2 root (HTTP \(response.status)); --kinds all lists the kinds from it")
                }
                throw HTTPError.status(url: response.url, status: response.status)
            }
            let endpoints: [String]
            do { endpoints = try RootIndex.parse(response.body, resource: url.absoluteString) } catch {
                // A 200 that does not parse may be a truncated body: worth another try.
                throw HTTPError.invalidBody(url: response.url, reason: "\(error)")
            }
            return RootIndex(endpoints: endpoints, deployHash: response.header("x-pokeapi-hash"),
                             bodyBytes: response.body.count, wire: response.wireSize)
        }
    }

    package func list(_ kind: ResourceKind) async throws -> ResourceList {
        var pageURL = base.appendingPathComponent(kind.apiName + "/")
        pageURL = URL(string: pageURL.absoluteString + "?limit=\(pageLimit)&offset=0")!
        var resources: [ListedResource] = []
        var deployHash: String?
        var bodyBytes = 0
        var transfer = TransferBytes()
        var seenPages = Set<String>()
        var announced: Int?
        while true {
            guard seenPages.insert(pageURL.absoluteString).inserted, seenPages.count <= 1_000 else {
                throw SourceError(resource: pageURL.absoluteString, reason: "list pagination loops")
            }
            let isFirstPage = seenPages.count == 1
            let (page, response) = try await client.fetch(pageURL) { response in
                if isFirstPage, [400, 404, 410].contains(response.status) {
                    throw notAnAPIBase(kind, status: response.status)
                }
                guard response.status == 200 else {
                    throw HTTPError.status(url: response.url, status: response.status)
                }
                do {
                    return (try ListPage.parse(response.body, kind: kind, resource: response.url.absoluteString), response)
                } catch {
                    // A 200 that does not parse may be a truncated body: worth another try.
                    throw HTTPError.invalidBody(url: response.url, reason: "\(error)")
                }
            }
            resources += page.results
            announced = announced ?? page.count
            bodyBytes += response.body.count
            transfer.add(decoded: response.body.count, response.wireSize)
            deployHash = deployHash ?? response.header("x-pokeapi-hash")
            guard let next = page.next, !page.results.isEmpty else { break }
            guard let nextURL = followOnBase(next) else {
                throw SourceError(resource: pageURL.absoluteString, reason: "list `next` is not an \(APIShape.rootPath) URL: \(next)")
            }
            pageURL = nextURL
        }
        // Fewer than announced means a page was cut short: publishing that would drop resources.
        if let announced, resources.count < announced {
            throw SourceError(resource: base.appendingPathComponent(kind.apiName + "/").absoluteString,
                              reason: "the list announces \(announced) resources but gave \(resources.count)")
        }
        return ResourceList(resources: resources, deployHash: deployHash, bodyBytes: bodyBytes, transfer: transfer)
    }

    /// A list's `next` link, followed on the source's own base: its `/api/v2/...` part
    /// (path and query) whatever origin or path prefix it names. A server behind a reverse proxy writes
    /// the host it was asked for (an internal address, or http for https), which this
    /// process must never contact. Nil when the link holds no `/api/v2/`.
    func followOnBase(_ next: String) -> URL? {
        // Whatever stands before /api/v2/ (an origin, a proxy's path prefix, nothing) is
        // the server's idea of its address, not ours.
        guard let api = next.range(of: APIShape.rootPath) else { return nil }
        return URL(string: stripPrefix + next[api.lowerBound...])
    }

    /// A list that is not there at all on the first page: the base is not a PokeAPI v2 base.
    func notAnAPIBase(_ kind: ResourceKind, status: Int) -> SourceError {
        let listURL = base.absoluteString + "/" + kind.apiName + "/"
        // An endpoint beyond the ten comes from the source's root (--kinds all or a list):
        // the base is a PokeAPI, that one endpoint is not there.
        guard ResourceKind.defaultKinds.contains(kind) else {
            return SourceError(resource: listURL, reason: "the source lists the endpoint \(kind.apiName), but its list "
                               + "answers HTTP \(status); a --kinds list without it mirrors the others")
        }
        let hint = base.path.hasSuffix(APIShape.basePath)
            ? "is this a PokeAPI server?"
            : "--source must be the API base ending in \(APIShape.basePath) (e.g. \(MirrorChoices.defaultSource))"
        return SourceError(resource: base.absoluteString,
                           reason: "no PokeAPI v2 list at \(listURL) (HTTP \(status)); \(hint)")
    }

    package func fetch(_ kind: ResourceKind, id: Int, validators: Validators?) async throws -> DocumentFetch {
        // `/api/v2/pokemon/25/`, `/api/v2/pokemon/25/encounters`, `/api/v2/meta/`: the paths
        // PokeAPI links, so its own server needs no redirect.
        let url = URL(string: base.absoluteString + kind.documentPath(id: id).dropFirst(APIShape.basePath.count))!
        let prefix = stripPrefix
        return try await client.fetch(url, headers: validators?.requestHeaders ?? [:]) { response -> DocumentFetch in
            switch response.status {
            case 304 where validators != nil:
                return .notModified(wire: response.wireSize)
            case 200:
                let document: CanonicalDocument
                do {
                    document = try CanonicalJSON.canonicalize(response.body, stripPrefix: prefix)
                } catch {
                    throw HTTPError.invalidBody(url: response.url, reason: "\(error)")
                }
                if let problem = kind.problem(with: document, id: id) {
                    throw SourceError(resource: url.absoluteString, reason: problem, problem: .invalidAnswer)
                }
                let kept = Validators(etag: response.header("etag"), lastModified: response.header("last-modified"))
                return .content(document, validators: kept, bodyBytes: response.body.count,
                                wire: response.wireSize)
            case 404:
                throw SourceError(resource: url.absoluteString, reason: "listed, but the server says 404 Not Found")
            default:
                throw HTTPError.status(url: response.url, status: response.status)
            }
        }
    }
}
