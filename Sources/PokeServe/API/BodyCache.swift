import Foundation
import PokeArchive
import PokeHTTP
import PokeLocking
import PokeSyncCore

/// A body as served: the bytes, gzip'd once (when that is smaller), its entity tags, and
/// the start of its 200's head in each coding, made once (``APIResponder``'s answer adds
/// the version's and the coding's lines after it, and the HTTP layer the framing).
final class RenderedBody: Sendable {
    /// The plain bytes; nil in a body the cache keeps for clients taking gzip only
    /// (``gzipOnly()``).
    let plain: ByteBuffer?
    let gzip: ByteBuffer?
    /// Quoted, as in the `ETag` header.
    let etag: String
    /// The gzip representation's: the plain one's with `-gzip` inside the quotes (strong
    /// validators of two content codings must differ, RFC 9110 8.8.1); nil without gzip.
    let gzipETag: String?
    /// The status line and the headers before `X-PokeAPI-Hash` of a 200 with `plain`, and
    /// with `gzip` (``headers(etag:)``).
    let plainHead: ByteBuffer
    let gzipHead: ByteBuffer?

    /// `plain` and its gzip'd copy, counted in `memory` while they live.
    init(plain: [UInt8], etag: String, memory: MemoryBudget) {
        self.plain = ByteBuffer(plain, countedIn: memory)
        self.etag = etag
        plainHead = ByteBuffer(PreparedHead.lines(.ok, Self.headers(etag: etag)), countedIn: memory)
        if plain.count >= 256, let compressed = try? Zlib.compress(plain, format: .gzip, level: 6),
           compressed.count < plain.count {
            gzip = ByteBuffer(compressed, countedIn: memory)
            let gzipETag = String(etag.dropLast()) + "-gzip\""
            self.gzipETag = gzipETag
            gzipHead = ByteBuffer(PreparedHead.lines(.ok, Self.headers(etag: gzipETag)), countedIn: memory)
        } else {
            gzip = nil
            gzipETag = nil
            gzipHead = nil
        }
    }

    private init(plain: ByteBuffer?, gzip: ByteBuffer?, etag: String, gzipETag: String?, plainHead: ByteBuffer,
                 gzipHead: ByteBuffer?) {
        self.plain = plain
        self.gzip = gzip
        self.etag = etag
        self.gzipETag = gzipETag
        self.plainHead = plainHead
        self.gzipHead = gzipHead
    }

    /// This body without its plain bytes (its gzip'd ones, tags and heads shared), or nil
    /// when it has no gzip'd copy. What the cache keeps of a body asked for with gzip: the
    /// plain bytes of a document are 10 to 25 times its gzip'd ones, so the cache holds that
    /// many more documents for the clients that take gzip (all of a whole-API mirror's,
    /// after a crawl), and the plain bytes are made again when a client asks for them.
    func gzipOnly() -> RenderedBody? {
        guard gzip != nil else { return nil }
        return RenderedBody(plain: nil, gzip: gzip, etag: etag, gzipETag: gzipETag, plainHead: plainHead, gzipHead: gzipHead)
    }

    /// The length of the plain bytes: counted, or for a body kept gzip'd only as its gzip
    /// trailer records it (the length modulo 2^32: a body is far below 4 GB).
    var plainCount: Int {
        if let plain { return plain.count }
        return gzip?.withUnsafeBytes { Zlib.gzipRecordedSize($0) } ?? 0
    }

    /// This body with its plain bytes, inflated from its gzip'd ones when it was kept
    /// without them: a tenth or less of the work of reading, rendering and compressing it
    /// anew. Nil when they do not inflate.
    func withPlain(memory: MemoryBudget) -> RenderedBody? {
        guard plain == nil else { return self }
        guard let gzip, let bytes = try? gzip.withUnsafeBytes({ try Zlib.decompress($0, format: .gzip) }) else { return nil }
        return RenderedBody(plain: ByteBuffer(bytes, countedIn: memory), gzip: gzip, etag: etag, gzipETag: gzipETag,
                            plainHead: plainHead, gzipHead: gzipHead)
    }

    /// A body's headers before the version's (`X-PokeAPI-Hash`), in the order written, with
    /// the representation's entity tag `etag`.
    static func headers(etag: String) -> [(String, String)] {
        [("Content-Type", "application/json"), ("ETag", etag), ("Cache-Control", "public, max-age=\(Site.maxAge)"),
         ("Vary", "Accept-Encoding")]
    }

    var cost: Int { (plain?.count ?? 0) + (gzip?.count ?? 0) + plainHead.count + (gzipHead?.count ?? 0) + 128 }
}

/// What a cached body is: a document (by content hash: the base URL is fixed for the
/// process, so a new version reuses every body that did not change), a list page or the
/// root (by the version's tag).
enum BodyKey: Hashable, Sendable {
    case document(SHA256Digest)
    case page(version: String, kind: ResourceKind, offset: String, limit: String, others: String)
    case root(version: String)
}

/// Least-recently-used bodies (approximately: a body read since it was kept gets a second
/// chance when it comes up for eviction, as CLOCK does), bounded by bytes (plain and gzip'd together; a body asked
/// for only with gzip is kept without its plain bytes, ``RenderedBody/gzipOnly()``), that admit
/// a new body over others only when it is asked for more often (a frequency sketch, as
/// TinyLFU): while there is room every body is kept; once full, a body asked for once
/// (a crawl, or a client asking for many distinct documents and reading nothing) never
/// pushes out the bodies others keep asking for. Shared by the workers behind one lock; a
/// body in use by a connection stays alive after eviction until its write ends.
final class BodyCache: Sendable {
    private final class Node {
        let key: BodyKey
        let body: RenderedBody
        var older: Node?
        var newer: Node?
        /// Read since it was put or last passed over for eviction: it gets a second chance
        /// (moved to the newest end) instead of going. A read sets this flag rather than
        /// moving the node, which would cost four links' reference counts under the lock.
        var read = false
        init(key: BodyKey, body: RenderedBody) { self.key = key; self.body = body }
    }

    // @unchecked Sendable: the list's nodes (mutable classes) are reached only through the
    // lock that holds this state; what leaves it is a node's `body`, which is Sendable.
    private struct State: @unchecked Sendable {
        var nodes: [BodyKey: Node] = [:]
        var newest: Node?
        var oldest: Node?
        var bytes = 0
        var hits = 0
        var misses = 0
        /// Bytes of bodies let go since the start (what ``FreedMemoryTrimmer`` watches).
        var evicted = 0
        var frequency = FrequencySketch()
    }

    let capacity: Int
    private let state = Locked(State())
    /// The most bodies one admission looks at: 4,096 small gzip'd ones (about 2 kB each)
    /// make room for the largest body kept (a quarter of 32 MB).
    static let admissionLook = 4_096

    init(capacity: Int) { self.capacity = capacity }

    /// The body of `key`, counting the request (hit or miss) in the frequency sketch; with
    /// `plain`, only a body kept with its plain bytes (one kept for gzip only is a miss).
    func get(_ key: BodyKey, plain: Bool) -> RenderedBody? {
        state.withLock { state in
            state.frequency.record(key.hashValue)
            guard let node = state.nodes[key], !plain || node.body.plain != nil else { state.misses += 1; return nil }
            state.hits += 1
            node.read = true
            return node.body
        }
    }

    /// The body of `key` when kept, without counting a request: a second look for one
    /// request (the render thread's, after the worker's `get` missed).
    func peek(_ key: BodyKey, plain: Bool) -> RenderedBody? {
        state.withLock { state in
            guard let body = state.nodes[key]?.body, !plain || body.plain != nil else { return nil }
            return body
        }
    }

    /// Keeps `body` when there is room, or when it is asked for more often than each of the
    /// least recently used bodies it would push out; otherwise it is served and dropped.
    /// A body bigger than a quarter of the capacity is served but not kept.
    func put(_ key: BodyKey, _ body: RenderedBody) {
        guard body.cost <= capacity / 4 else { return }
        // The bodies let go are freed once the lock is released, not under it: freeing a
        // large one unmaps it (a system call), and every worker's `get` waits on this lock.
        let released = state.withLock { state -> [Node] in
            var released: [Node] = []
            let old = state.nodes[key]
            // A body kept whole stays so: a client taking gzip made it again meanwhile.
            if let old, old.body.plain != nil, body.plain == nil { return released }
            if let old {
                Self.unlink(old, &state)
                state.nodes[key] = nil
                state.bytes -= old.body.cost
            }
            // Who would go: the oldest not read since they came there (those get a second
            // chance below), until the body fits; each must be asked for less. When those
            // are not enough, the read ones too (the body still has to be asked for more).
            let wanted = state.frequency.estimate(key.hashValue)
            let admitted = admits(body.cost, wanted, passingOverRead: true, state)
                ?? admits(body.cost, wanted, passingOverRead: false, state) ?? true
            guard admitted else {
                // Not kept: the body it was to replace (kept gzip'd only) stays.
                if let old {
                    state.nodes[key] = old
                    Self.pushNewest(old, &state)
                    state.bytes += old.body.cost
                }
                return released
            }
            if let old { released.append(old) }
            while capacity - state.bytes < body.cost, let oldest = state.oldest {
                if oldest.read && oldest !== state.newest {
                    // Its second chance (each node passed over once: the loop ends).
                    oldest.read = false
                    Self.unlink(oldest, &state)
                    Self.pushNewest(oldest, &state)
                    continue
                }
                Self.unlink(oldest, &state)
                state.nodes[oldest.key] = nil
                state.bytes -= oldest.body.cost
                state.evicted += oldest.body.cost
                released.append(oldest)
            }
            let node = Node(key: key, body: body)
            state.nodes[key] = node
            Self.pushNewest(node, &state)
            state.bytes += body.cost
            return released
        }
        withExtendedLifetime(released) {}
    }

    /// Whether bodies asked for less than `wanted`, from the oldest, free room for `cost`
    /// bytes before one asked for as often or more is met; nil when the bodies looked at
    /// (not those read since they came there, with `passingOverRead`) run out first, or
    /// `admissionLook` of them were looked at (the walk is under the lock every read takes).
    private func admits(_ cost: Int, _ wanted: UInt8, passingOverRead: Bool, _ state: borrowing State) -> Bool? {
        var freed = capacity - state.bytes
        var victim = state.oldest
        var looked = 0
        while freed < cost, let candidate = victim {
            looked += 1
            if looked > Self.admissionLook { return passingOverRead ? nil : false }
            victim = candidate.newer
            if passingOverRead && candidate.read { continue }
            guard state.frequency.estimate(candidate.key.hashValue) < wanted else { return false }
            freed += candidate.body.cost
        }
        return freed >= cost ? true : passingOverRead ? nil : true
    }

    var bytes: Int { state.withLock { $0.bytes } }

    /// Bytes of bodies the cache has let go since it was made (a body still being written
    /// is freed when its write ends).
    var evictedBytes: Int { state.withLock { $0.evicted } }

    /// Lookups that found a body and that did not, and the bytes held, for the metrics.
    var figures: (hits: Int, misses: Int, bytes: Int) { state.withLock { ($0.hits, $0.misses, $0.bytes) } }

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

/// How often keys were asked for lately, approximately (a count-min sketch of 4-bit
/// counters in four rows, all halved every `window` records so that old popularity
/// fades): 512 kB whatever the number of keys.
struct FrequencySketch {
    /// Counters a row: several times the keys a whole-API crawl asks for (some 31,000
    /// records for 15,500 documents and their pages). At 32,768 every counter held about one
    /// collision after a crawl, so a body asked for once read as twice: a body becoming
    /// popular tied the crawl's and was rendered again at each request until it outran them
    /// (570 to 810 renders in the first 8 s after a crawl, against 460 at this width).
    private static let width = 1 << 17
    private var counters = [UInt8](repeating: 0, count: 4 * width)
    private var records = 0
    private let window = 10 * width

    /// The counter of `hash` in `row`: a different mix of the hash per row.
    private static func slot(_ hash: Int, row: Int) -> Int {
        var value = UInt64(bitPattern: Int64(hash)) &+ UInt64(row) &* 0x9E37_79B9_7F4A_7C15
        value = (value ^ (value >> 31)) &* 0xBF58_476D_1CE4_E5B9
        value ^= value >> 29
        return row * width + Int(truncatingIfNeeded: value) & (width - 1)
    }

    mutating func record(_ hash: Int) {
        for row in 0 ..< 4 {
            let slot = Self.slot(hash, row: row)
            if counters[slot] < 15 { counters[slot] += 1 }
        }
        records += 1
        if records >= window {
            records = 0
            for index in counters.indices { counters[index] >>= 1 }
        }
    }

    func estimate(_ hash: Int) -> UInt8 {
        var least = UInt8.max
        for row in 0 ..< 4 { least = min(least, counters[Self.slot(hash, row: row)]) }
        return least
    }
}
