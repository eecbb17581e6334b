import Foundation
import PokeArchive
import PokeSyncCore

/// A body as served: the bytes, gzip'd once (when that is smaller), and its entity tag.
final class RenderedBody: Sendable {
    let plain: ByteBuffer
    let gzip: ByteBuffer?
    /// Quoted, as in the `ETag` header.
    let etag: String

    init(plain: [UInt8], etag: String) {
        self.plain = ByteBuffer(plain)
        self.etag = etag
        if plain.count >= 256, let compressed = try? Zlib.compress(plain, format: .gzip, level: 6),
           compressed.count < plain.count {
            gzip = ByteBuffer(compressed)
        } else {
            gzip = nil
        }
    }

    var cost: Int { plain.count + (gzip?.count ?? 0) + 128 }
}

/// What a cached body is: a document (by content hash: the base URL is fixed for the
/// process, so a new version reuses every body that did not change), a list page or the
/// root (by the version's tag).
enum BodyKey: Hashable, Sendable {
    case document(SHA256Digest)
    case page(version: String, kind: String, offset: String, limit: String, others: String)
    case root(version: String)
}

/// Least-recently-used bodies, bounded by bytes (plain and gzip'd together). Shared by
/// the workers behind one lock; a body in use by a connection stays alive after eviction
/// until its write ends.
final class BodyCache: Sendable {
    private final class Node {
        let key: BodyKey
        let body: RenderedBody
        var older: Node?
        var newer: Node?
        init(key: BodyKey, body: RenderedBody) { self.key = key; self.body = body }
    }

    private struct State {
        var nodes: [BodyKey: Node] = [:]
        var newest: Node?
        var oldest: Node?
        var bytes = 0
        var hits = 0
        var misses = 0
    }

    let capacity: Int
    private let state = Locked(State())

    init(capacity: Int) { self.capacity = capacity }

    func get(_ key: BodyKey) -> RenderedBody? {
        state.withLock { state in
            guard let node = state.nodes[key] else { state.misses += 1; return nil }
            state.hits += 1
            Self.unlink(node, &state)
            Self.pushNewest(node, &state)
            return node.body
        }
    }

    /// Keeps `body`, dropping the least recently used ones past the capacity. A body
    /// bigger than a quarter of the capacity is served but not kept.
    func put(_ key: BodyKey, _ body: RenderedBody) {
        guard body.cost <= capacity / 4 else { return }
        state.withLock { state in
            if let old = state.nodes[key] {
                Self.unlink(old, &state)
                state.bytes -= old.body.cost
            }
            let node = Node(key: key, body: body)
            state.nodes[key] = node
            Self.pushNewest(node, &state)
            state.bytes += body.cost
            while state.bytes > capacity, let oldest = state.oldest {
                Self.unlink(oldest, &state)
                state.nodes[oldest.key] = nil
                state.bytes -= oldest.body.cost
            }
        }
    }

    var bytes: Int { state.withLock { $0.bytes } }

    private static func unlink(_ node: Node, _ state: inout State) {
        if let older = node.older { older.newer = node.newer } else { state.oldest = node.newer }
        if let newer = node.newer { newer.older = node.older } else { state.newest = node.older }
        node.older = nil
        node.newer = nil
    }

    private static func pushNewest(_ node: Node, _ state: inout State) {
        node.older = state.newest
        state.newest?.newer = node
        state.newest = node
        if state.oldest == nil { state.oldest = node }
    }
}
