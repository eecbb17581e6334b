import CSHA256
import Foundation

/// A SHA-256 digest: 32 bytes, compared and hashed as four big-endian 64-bit words
/// so that digests can key dictionaries without allocating.
public struct SHA256Digest: Hashable, Sendable, Comparable, CustomStringConvertible {
    // Big-endian words: comparing them in order is comparing the bytes lexicographically.
    private let word0: UInt64
    private let word1: UInt64
    private let word2: UInt64
    private let word3: UInt64

    fileprivate init(words: (UInt64, UInt64, UInt64, UInt64)) {
        (word0, word1, word2, word3) = words
    }

    /// Makes a digest from exactly 32 bytes; `nil` for any other length.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 32 else { return nil }
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &words) { raw in
            _ = raw.initializeMemory(as: UInt8.self, from: bytes)
        }
        self.init(words: (UInt64(bigEndian: words.0), UInt64(bigEndian: words.1),
                          UInt64(bigEndian: words.2), UInt64(bigEndian: words.3)))
    }

    /// Parses 64 hexadecimal digits (either case); `nil` for anything else.
    public init?(hex: String) {
        var words: [UInt64] = []
        words.reserveCapacity(4)
        var current: UInt64 = 0
        var digitCount = 0
        for unit in hex.utf8 {
            guard let nibble = Self.nibble(unit) else { return nil }
            current = current << 4 | UInt64(nibble)
            digitCount += 1
            if digitCount % 16 == 0 {
                words.append(current)
                current = 0
            }
            if digitCount > 64 { return nil }
        }
        guard digitCount == 64 else { return nil }
        self.init(words: (words[0], words[1], words[2], words[3]))
    }

    /// The 32 digest bytes.
    public var bytes: [UInt8] {
        var bigEndianWords = (word0.bigEndian, word1.bigEndian, word2.bigEndian, word3.bigEndian)
        return withUnsafeBytes(of: &bigEndianWords) { Array($0) }
    }

    /// The digest as 64 lowercase hexadecimal digits, as `sha256sum` prints it.
    public var hex: String {
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: 64) { output in
            digits.withUTF8Buffer { table in
                var index = 0
                for word in [word0, word1, word2, word3] {
                    var shift = 60
                    while shift >= 0 {
                        output[index] = table[Int(truncatingIfNeeded: word >> UInt64(shift)) & 0xF]
                        index += 1
                        shift -= 4
                    }
                }
            }
            return 64
        }
    }

    public var description: String { hex }

    public static func < (lhs: SHA256Digest, rhs: SHA256Digest) -> Bool {
        (lhs.word0, lhs.word1, lhs.word2, lhs.word3) < (rhs.word0, rhs.word1, rhs.word2, rhs.word3)
    }

    private static func nibble(_ unit: UInt8) -> UInt8? {
        switch unit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): unit &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): unit &- UInt8(ascii: "a") &+ 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): unit &- UInt8(ascii: "A") &+ 10
        default: nil
        }
    }
}

/// Incremental SHA-256 (FIPS 180-4).
///
/// Feed bytes with `update` in any chunking, then call `finalize()` once. The hasher keeps
/// at most one partial 64-byte block inline, so hashing never allocates. Whole blocks go
/// through the CPU's SHA extensions when it has them (x86 SHA-NI, about 3x faster), else
/// through portable Swift rounds.
public struct SHA256: Sendable {
    private var state = SHA256Rounds.initialState
    // Tests only: always the Swift rounds, so they stay tested on SHA-NI machines.
    private var portable = false
    // The partial block that waits for more bytes, stored inline (64 bytes).
    private var pending: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
        (0, 0, 0, 0, 0, 0, 0, 0)
    private var pendingCount = 0
    private var totalByteCount: UInt64 = 0

    /// Starts a new hash of the empty message.
    public init() {}

    /// A hasher that never uses the SHA extensions: for tests of the portable rounds.
    package static func portableHasher() -> SHA256 {
        var hasher = SHA256()
        hasher.portable = true
        return hasher
    }

    /// Whether whole blocks go through the CPU's SHA extensions on this machine.
    package static var usesSHAExtensions: Bool { SHA256Rounds.hasSHAExtensions }

    /// Adds the bytes in `buffer` to the message.
    public mutating func update(_ buffer: UnsafeRawBufferPointer) {
        guard var remaining = buffer.baseAddress.map({ UnsafeRawPointer($0) }), !buffer.isEmpty else { return }
        var remainingCount = buffer.count
        totalByteCount &+= UInt64(remainingCount)

        if pendingCount > 0 {
            let taken = min(64 - pendingCount, remainingCount)
            let filled = pendingCount
            withUnsafeMutableBytes(of: &pending) { block in
                (block.baseAddress! + filled).copyMemory(from: remaining, byteCount: taken)
            }
            pendingCount += taken
            remaining += taken
            remainingCount -= taken
            guard pendingCount == 64 else { return }
            let block = pending
            withUnsafeBytes(of: block) { SHA256Rounds.compress(&state, blocks: $0.baseAddress!, count: 1, portable: portable) }
            pendingCount = 0
        }

        let wholeBlocks = remainingCount / 64
        if wholeBlocks > 0 {
            SHA256Rounds.compress(&state, blocks: remaining, count: wholeBlocks, portable: portable)
            remaining += wholeBlocks * 64
            remainingCount -= wholeBlocks * 64
        }
        if remainingCount > 0 {
            withUnsafeMutableBytes(of: &pending) { block in
                block.baseAddress!.copyMemory(from: remaining, byteCount: remainingCount)
            }
            pendingCount = remainingCount
        }
    }

    /// Adds `data` to the message, one contiguous region at a time.
    public mutating func update(_ data: some DataProtocol) {
        for region in data.regions {
            region.withUnsafeBytes { update($0) }
        }
    }

    /// Adds the bytes of `bytes` to the message.
    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Pads the message and returns its digest. The hasher is used up.
    public consuming func finalize() -> SHA256Digest {
        let messageBits = totalByteCount &* 8
        // Padding: a 0x80 byte, zeros up to 56 mod 64, then the bit length, big-endian.
        let paddingCount = pendingCount < 56 ? 56 - pendingCount : 120 - pendingCount
        withUnsafeTemporaryAllocation(byteCount: 72, alignment: 8) { padding in
            padding.initializeMemory(as: UInt8.self, repeating: 0)
            padding[0] = 0x80
            padding.storeBytes(of: messageBits.bigEndian, toByteOffset: paddingCount, as: UInt64.self)
            update(UnsafeRawBufferPointer(rebasing: padding[0..<(paddingCount + 8)]))
        }
        let s = state
        return SHA256Digest(words: (UInt64(s.0) << 32 | UInt64(s.1), UInt64(s.2) << 32 | UInt64(s.3),
                                    UInt64(s.4) << 32 | UInt64(s.5), UInt64(s.6) << 32 | UInt64(s.7)))
    }

    /// The digest of `data`.
    public static func hash(_ data: some DataProtocol) -> SHA256Digest {
        var hasher = SHA256()
        hasher.update(data)
        return hasher.finalize()
    }

    /// The digest of `bytes`.
    public static func hash(_ bytes: [UInt8]) -> SHA256Digest {
        bytes.withUnsafeBytes { hash($0) }
    }

    /// The digest of the bytes in `buffer`.
    public static func hash(_ buffer: UnsafeRawBufferPointer) -> SHA256Digest {
        var hasher = SHA256()
        hasher.update(buffer)
        return hasher.finalize()
    }
}

/// The SHA-256 compression function over whole 64-byte blocks.
private enum SHA256Rounds {
    typealias State = (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)

    static let initialState: State = (
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
    )

    static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    // Written for unoptimised builds too: an app's debug build installs bundles with this
    // code, and SwiftPM builds a dependency the way the app is built. `@_transparent` is
    // inlined even without the optimiser (`@inline(__always)` is not), masking shifts
    // (`&>>`) are single instructions where the generic `>>` is a call, and `while` loops
    // avoid a range iterator's calls: about 8x faster in a debug build.

    @_transparent
    static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { x &>> n | x &<< (32 &- n) }

    /// One round. The caller rotates the eight working variables by renaming them in its
    /// argument lists, so no values are shuffled between rounds.
    @_transparent
    static func round(
        _ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: inout UInt32,
        _ e: UInt32, _ f: UInt32, _ g: UInt32, _ h: inout UInt32, _ constantPlusWord: UInt32
    ) {
        let sigma1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
        let choose = g ^ (e & (f ^ g))
        let temp1 = h &+ sigma1 &+ choose &+ constantPlusWord
        let sigma0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
        let majority = (a & b) | (c & (a | b))
        d &+= temp1
        h = temp1 &+ sigma0 &+ majority
    }

    /// Whether the CPU has the SHA extensions: asked once per process.
    static let hasSHAExtensions = csha256_ni_available() != 0

    /// Runs the compression function over `count` consecutive 64-byte blocks at `blocks`:
    /// on the SHA extensions when the CPU has them and `portable` is false, else in Swift.
    static func compress(_ state: inout State, blocks: UnsafeRawPointer, count: Int, portable: Bool) {
        guard !portable, hasSHAExtensions else {
            return compressPortable(&state, blocks: blocks, count: count)
        }
        // A homogeneous tuple is laid out as a C array of its elements.
        withUnsafeMutablePointer(to: &state) { tuple in
            tuple.withMemoryRebound(to: UInt32.self, capacity: 8) { words in
                csha256_ni_compress(words, blocks.assumingMemoryBound(to: UInt8.self), count)
            }
        }
    }

    /// The compression function in Swift, for CPUs without the SHA extensions.
    static func compressPortable(_ state: inout State, blocks: UnsafeRawPointer, count: Int) {
        roundConstants.withUnsafeBufferPointer { constants in
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
                let k = constants.baseAddress!
                let w = schedule.baseAddress!
                var (h0, h1, h2, h3, h4, h5, h6, h7) = state
                var block = blocks
                var remaining = count
                while remaining > 0 {
                    remaining &-= 1
                    var t = 0
                    while t < 16 {
                        let bytes = block.advanced(by: t &* 4).assumingMemoryBound(to: UInt8.self)
                        w[t] = UInt32(bytes[0]) &<< 24 | UInt32(bytes[1]) &<< 16 | UInt32(bytes[2]) &<< 8 | UInt32(bytes[3])
                        t &+= 1
                    }
                    while t < 64 {
                        let w15 = w[t &- 15], w2 = w[t &- 2]
                        let s0 = rotr(w15, 7) ^ rotr(w15, 18) ^ (w15 &>> 3)
                        let s1 = rotr(w2, 17) ^ rotr(w2, 19) ^ (w2 &>> 10)
                        w[t] = w[t &- 16] &+ s0 &+ w[t &- 7] &+ s1
                        t &+= 1
                    }
                    var (a, b, c, d, e, f, g, h) = (h0, h1, h2, h3, h4, h5, h6, h7)
                    t = 0
                    while t < 64 {
                        round(a, b, c, &d, e, f, g, &h, k[t] &+ w[t])
                        round(h, a, b, &c, d, e, f, &g, k[t &+ 1] &+ w[t &+ 1])
                        round(g, h, a, &b, c, d, e, &f, k[t &+ 2] &+ w[t &+ 2])
                        round(f, g, h, &a, b, c, d, &e, k[t &+ 3] &+ w[t &+ 3])
                        round(e, f, g, &h, a, b, c, &d, k[t &+ 4] &+ w[t &+ 4])
                        round(d, e, f, &g, h, a, b, &c, k[t &+ 5] &+ w[t &+ 5])
                        round(c, d, e, &f, g, h, a, &b, k[t &+ 6] &+ w[t &+ 6])
                        round(b, c, d, &e, f, g, h, &a, k[t &+ 7] &+ w[t &+ 7])
                        t &+= 8
                    }
                    h0 &+= a; h1 &+= b; h2 &+= c; h3 &+= d
                    h4 &+= e; h5 &+= f; h6 &+= g; h7 &+= h
                    block += 64
                }
                state = (h0, h1, h2, h3, h4, h5, h6, h7)
            }
        }
    }
}
