import Foundation

/// What the store kept about a document from the last time it was fetched, so that
/// the next fetch can be conditional.
package struct Validators: Sendable, Hashable {
    package var etag: String?
    package var lastModified: String?

    package init(etag: String?, lastModified: String?) {
        self.etag = etag
        self.lastModified = lastModified
    }

    package var isEmpty: Bool { etag == nil && lastModified == nil }

    /// The headers of a conditional GET: `If-None-Match` and `If-Modified-Since`.
    package var requestHeaders: [String: String] {
        var headers: [String: String] = [:]
        if let etag { headers["If-None-Match"] = etag }
        if let lastModified { headers["If-Modified-Since"] = lastModified }
        return headers
    }
}

/// The answer of a source for one document.
package enum DocumentFetch: Sendable {
    /// New content: the canonical document and the validators to keep for next time;
    /// `bodyBytes` decoded, `wire` as sent (smaller when gzip-encoded; `.local` from a folder).
    case content(CanonicalDocument, validators: Validators, bodyBytes: Int, wire: WireSize)
    /// The conditional request matched: what the store has is current.
    /// A 304 is a normal result, not a failure.
    case notModified(wire: WireSize)
}

/// The list of one kind, with the deploy identifier the source sent along, if any.
package struct ResourceList: Sendable {
    package var resources: [ListedResource]
    /// pokeapi.co sends `X-PokeAPI-Hash` on every response; it changes with each deploy.
    package var deployHash: String?
    package var bodyBytes: Int
    /// What the list's pages moved; nil in `init` means `bodyBytes` read from a local folder.
    package var transfer: TransferBytes

    package init(resources: [ListedResource], deployHash: String?, bodyBytes: Int, transfer: TransferBytes? = nil) {
        self.resources = resources
        self.deployHash = deployHash
        self.bodyBytes = bodyBytes
        self.transfer = transfer ?? {
            var local = TransferBytes()
            local.add(decoded: bodyBytes, .local)
            return local
        }()
    }
}

/// The source's root (`/api/v2/`): the endpoints it has, by name.
package struct RootIndex: Sendable {
    /// Every endpoint the root lists (`ability`, ..., `meta`), sorted.
    package var endpoints: [String]
    package var deployHash: String?
    package var bodyBytes: Int
    /// How the root came: over HTTP (its size as sent, when known) or from a local folder.
    package var wire: WireSize

    package init(endpoints: [String], deployHash: String?, bodyBytes: Int, wire: WireSize) {
        self.endpoints = endpoints
        self.deployHash = deployHash
        self.bodyBytes = bodyBytes
        self.wire = wire
    }

    /// The endpoint names of a root document `{"ability": "/api/v2/ability/", ...}`;
    /// a name that cannot be an endpoint's is refused, never used as a path.
    /// - Throws: `SourceError` (65) naming `resource` when it is not such an object.
    static func parse(_ data: Data, resource: String) throws -> [String] {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], !object.isEmpty else {
            throw SourceError(resource: resource, reason: "not a PokeAPI root ({\"ability\": URL, ...})",
                              problem: .invalidAnswer)
        }
        for (name, value) in object {
            guard ResourceKind.isValidName(name), value is String else {
                throw SourceError(resource: resource, reason: "the root lists \"\(name.prefix(80))\", not an endpoint",
                                  problem: .invalidAnswer)
            }
        }
        return object.keys.sorted()
    }
}

/// Where documents come from: a PokeAPI-compatible HTTP API or an api-data folder.
/// Both give documents in one canonical form (API base stripped, minified), so a
/// document's hash does not depend on the source.
package protocol DocumentSource: Sendable {
    /// The source as the user gave it, for logs and the version record.
    var description: String { get }
    /// The endpoints the source's root lists (what `--kinds all` mirrors).
    /// - Throws: `SourceError` when the root cannot be had or is not a root.
    func rootIndex() async throws -> RootIndex
    /// Every resource of a kind.
    /// - Throws: `SourceError` when the list cannot be had or makes no sense.
    func list(_ kind: ResourceKind) async throws -> ResourceList
    /// One document, conditionally when `validators` is given.
    /// - Throws: `SourceError` or `HTTPError` once retries are spent; `CancellationError`.
    func fetch(_ kind: ResourceKind, id: Int, validators: Validators?) async throws -> DocumentFetch
    /// Seconds one request's attempt may take in all, for a source over the network: the
    /// silence after which the run stops (`SourceWatch`); nil for a local folder.
    var attemptDeadline: Int? { get }
}

extension DocumentSource {
    package var attemptDeadline: Int? { nil }
}

/// A source that cannot be used, named with what was asked of it.
package struct SourceError: PokeSyncError {
    /// What was wrong with the source.
    package enum Problem: Sendable {
        /// It cannot be reached, or does not look like a PokeAPI (69).
        case unavailable
        /// It answered with a list or document that is not one (65).
        case invalidAnswer
    }

    package var resource: String
    package var reason: String
    package var problem: Problem

    package init(resource: String, reason: String, problem: Problem = .unavailable) {
        self.resource = resource
        self.reason = reason
        self.problem = problem
    }

    package var code: ErrorCode {
        switch problem {
        case .unavailable: .sourceUnavailable
        case .invalidAnswer: .sourceInvalid
        }
    }

    package var description: String { "\(resource): \(reason)" }
}
