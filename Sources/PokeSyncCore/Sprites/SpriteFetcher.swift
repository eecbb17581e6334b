import Foundation
import PokeArchive
import PokedexReader
import PokedexUpdater

/// What became of one sprite.
package enum SpriteFetchOutcome: Sendable {
    /// `bodyBytes` as received (decoded), `wire` as sent or `.local` from a folder.
    case stored(SHA256Digest, size: Int, validators: Validators, bodyBytes: Int, wire: WireSize)
    /// The conditional request matched: the bytes on disk are current (`wire`: the 304, or `.local`).
    case notModified(wire: WireSize)
    /// The upstream does not have it (404): a normal, recorded outcome; the real repository has gaps.
    case missing(String)
    /// Refused by its URL (the policy will not fetch it): decided without asking a host.
    case refused(String)
    /// The host answered, but not with the file: the wrong type (an error page with a
    /// 200), cut short after every retry, too large, or a redirect off the allow-list.
    /// A failure of the host, not a removal: the file is carried or asked for again.
    case failed(String)
}

/// Fetches linked files over HTTP or from a local clone of PokeAPI/sprites or
/// PokeAPI/cries, checks they are a whole file of the type the path says (an image, an
/// Ogg stream), and stores them by hash.
package struct SpriteFetcher: Sendable {
    package let policy: SpritePolicy
    /// The policy of the cries tree (`--cry-source`).
    package let cryPolicy: SpritePolicy
    package let client: HTTPClient?
    package let objects: SpriteObjects
    package let tree: SpriteTree
    package let maxBytes: Int

    /// The largest linked file kept (8 MiB: the largest upstream sprite is a few hundred kB);
    /// Sources.md states it.
    package static let defaultMaxBytes = 8 << 20

    package init(policy: SpritePolicy, cryPolicy: SpritePolicy? = nil, client: HTTPClient?, layout: MirrorLayout,
                 maxBytes: Int = SpriteFetcher.defaultMaxBytes) {
        self.policy = policy
        var cries = cryPolicy ?? policy
        cries.tree = .cries
        self.cryPolicy = cries
        self.client = client
        self.objects = SpriteObjects(layout: layout)
        self.tree = SpriteTree(layout: layout)
        self.maxBytes = maxBytes
    }

    /// Where `job`'s bytes are asked for: the URL on its host, or the file in a local
    /// clone; nil when the policy refuses the URL.
    package func location(of job: SpriteJob) -> String? {
        guard case .success(let resolved) = (job.tree == .cries ? cryPolicy : policy).resolve(job.url) else { return nil }
        switch resolved.location {
        case .file(let file): return file.path
        case .http(let url): return url.absoluteString
        }
    }

    /// - Throws: `HTTPError` when retries are spent, `LocalFileError` when the disk
    ///   refuses, `CancellationError`.
    package func fetch(_ job: SpriteJob, validators: Validators?) async throws -> SpriteFetchOutcome {
        let resolved: SpritePolicy.Resolved
        switch (job.tree == .cries ? cryPolicy : policy).resolve(job.url) {
        case .success(let value): resolved = value
        case .failure(let refusal): return .refused(refusal.reason)
        }
        switch resolved.location {
        case .file(let file): return try readFile(file, resolved: resolved, validators: validators)
        case .http(let url): return try await download(url, resolved: resolved, validators: validators)
        }
    }

    private func download(_ url: URL, resolved: SpritePolicy.Resolved, validators: Validators?) async throws -> SpriteFetchOutcome {
        guard let client else { throw SourceError(resource: url.absoluteString, reason: "no HTTP client for sprites") }
        var headers = validators?.requestHeaders ?? [:]
        headers["Accept"] = resolved.fileExtension == "ogg" ? "audio/ogg, */*" : "image/png, image/gif, image/svg+xml, */*"
        let fileExtension = resolved.fileExtension
        let response: HTTPResponse
        let bytes: [UInt8]
        do {
            // The body is copied out of its Data once, here, and checked and stored from that copy.
            // Capped at the linked file's own limit while it streams, not after.
            (response, bytes) = try await client.fetch(url, headers: headers, maxBodyBytes: maxBytes) { response in
                let bytes = response.status == 200 ? [UInt8](response.body) : []
                if response.status == 200, ImageCheck.problem(bytes, fileExtension: fileExtension) == .incomplete {
                    throw HTTPError.invalidBody(url: response.url, reason: "\(ImageCheck.noun(fileExtension)) cut short")
                }
                return (response, bytes)
            }
        } catch HTTPError.invalidBody(_, let reason) {
            // Still cut short after every retry: refused and reported, so that one broken
            // file upstream cannot hold back every version after it.
            return .failed("\(reason) after \(client.configuration.retry.maxAttempts) attempts")
        } catch HTTPError.bodyTooLarge(_, let limit) {
            return .failed("larger than \(limit) bytes")
        } catch HTTPError.badEncoding(_, let encoding) {
            return .failed(HTTPError.notAsAnnounced(encoding))
        } catch HTTPError.redirectRefused(let origin, let target) {
            return .failed(RedirectPolicy.refusal(from: origin, to: target, extra: "not on the allow-list"))
        }
        switch response.status {
        case 200:
            let kept = Validators(etag: response.header("etag"), lastModified: response.header("last-modified"))
            return try keep(bytes, fileExtension: fileExtension, validators: kept, wire: response.wireSize)
        case 304 where validators != nil: return .notModified(wire: response.wireSize)
        case 404, 410: return .missing("HTTP \(response.status) upstream")
        default: throw HTTPError.status(url: response.url, status: response.status)
        }
    }

    private func readFile(_ file: URL, resolved: SpritePolicy.Resolved, validators: Validators?) throws -> SpriteFetchOutcome {
        guard let stamp = FolderSource.fileStamp(file.path) else { return .missing("not in the \(resolved.tree.folderName) folder") }
        if let known = validators?.etag, known == stamp { return .notModified(wire: .local) }
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
        guard size <= maxBytes else { return .failed("larger than \(maxBytes) bytes") }
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw SourceError(resource: file.path, reason: "cannot read the \(resolved.tree.noun)")
        }
        return try keep([UInt8](data), fileExtension: resolved.fileExtension,
                        validators: Validators(etag: stamp, lastModified: nil), wire: .local)
    }

    private func keep(_ bytes: [UInt8], fileExtension: String, validators: Validators, wire: WireSize) throws -> SpriteFetchOutcome {
        if let problem = ImageCheck.problem(bytes, fileExtension: fileExtension) {
            switch problem {
            case .wrongType(let reason): return .failed(reason)
            case .incomplete: return .failed("\(ImageCheck.noun(fileExtension)) cut short")
            }
        }
        let hash = try objects.store(bytes)
        return .stored(hash, size: bytes.count, validators: validators, bodyBytes: bytes.count, wire: wire)
    }
}
