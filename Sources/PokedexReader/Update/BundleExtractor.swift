import Foundation
import PokeArchive

/// Unpacks a downloaded `.tar.gz` bundle into a folder, safely: every entry is checked
/// in a first pass before anything is written (regular files and folders only, no
/// absolute paths, no `..`, no duplicates, sizes within `unpacked_size`), then a second
/// pass writes the files.
///
/// A small ustar reader of the updater's own; the tar branch's SafeExtractor replaces it
/// once merged.
struct BundleExtractor {
    let archive: URL
    /// The most bytes the entries may hold together (the index's `unpacked_size`).
    let unpackedSizeCap: Int

    /// Extracts into `destination` (an existing empty folder).
    /// - Returns: the archive paths of the regular files written, in archive order.
    /// - Throws: ``UpdateError/badBundle`` for an unsafe or corrupt archive,
    ///   ``UpdateError/io`` when a file cannot be written.
    func extract(into destination: URL) throws -> [String] {
        let names = try walk(writingInto: nil)
        _ = try walk(writingInto: destination)
        return names
    }

    /// Reads every entry; writes them under `destination` when it is not nil.
    private func walk(writingInto destination: URL?) throws -> [String] {
        var reader = try BlockReader(archive: archive)
        var files: [String] = []
        var seen = Set<String>()
        var total = 0
        while true {
            let header = try reader.read(512)
            guard header.count == 512 else { throw bad("ends before its end-of-archive marker") }
            if header.allSatisfy({ $0 == 0 }) { break }
            let name = try entryName(header)
            let size = try octal(header[124..<136], field: "size of \(name)")
            try checkChecksum(header, name: name)
            let type = header[156]
            guard type == UInt8(ascii: "0") || type == 0 || type == UInt8(ascii: "5") else {
                throw bad("holds \(name) of type '\(Character(Unicode.Scalar(type)))': only files and folders are allowed")
            }
            let path = try checkedPath(name)
            guard seen.insert(path).inserted else { throw bad("holds \(path) twice") }
            total += size
            guard total <= unpackedSizeCap else { throw bad("unpacks to more than its unpacked_size \(unpackedSizeCap)") }
            let padded = (size + 511) / 512 * 512
            if type == UInt8(ascii: "5") {
                if let destination { try makeFolder(destination.appendingPathComponent(path)) }
                continue
            }
            files.append(path)
            if let destination {
                let target = destination.appendingPathComponent(path)
                try makeFolder(target.deletingLastPathComponent())
                guard FileManager.default.createFile(atPath: target.path, contents: nil),
                      let handle = FileHandle(forWritingAtPath: target.path) else {
                    throw UpdateError.io(path: target.path, reason: "cannot create the file")
                }
                defer { try? handle.close() }
                var left = size
                while left > 0 {
                    let chunk = try reader.read(min(left, 1 << 20))
                    guard chunk.count == min(left, 1 << 20) else { throw bad("is truncated inside \(path)") }
                    do { try handle.write(contentsOf: chunk) } catch {
                        throw UpdateError.io(path: target.path, reason: error.localizedDescription)
                    }
                    left -= chunk.count
                }
                guard try reader.read(padded - size).count == padded - size else { throw bad("is truncated") }
            } else {
                guard try reader.skip(padded) else { throw bad("is truncated inside \(path)") }
            }
        }
        return files
    }

    private func entryName(_ header: [UInt8]) throws -> String {
        func field(_ range: Range<Int>) -> String {
            let bytes = header[range].prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
        let name = field(0..<100)
        let prefix = field(345..<500)
        return prefix.isEmpty ? name : prefix + "/" + name
    }

    /// A relative path of plain components, without a trailing slash.
    private func checkedPath(_ name: String) throws -> String {
        var trimmed = name
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        while trimmed.hasPrefix("./") { trimmed.removeFirst(2) }
        let parts = trimmed.split(separator: "/", omittingEmptySubsequences: false)
        guard !trimmed.isEmpty, !name.hasPrefix("/"),
              parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." && !$0.contains("\\") }) else {
            throw bad("holds the unsafe path \"\(name)\"")
        }
        return trimmed
    }

    private func octal(_ bytes: ArraySlice<UInt8>, field: String) throws -> Int {
        let text = String(decoding: bytes.prefix { $0 != 0 && $0 != 0x20 }, as: UTF8.self)
        guard let value = Int(text.isEmpty ? "0" : text, radix: 8), value >= 0 else { throw bad("has a bad \(field)") }
        return value
    }

    private func checkChecksum(_ header: [UInt8], name: String) throws {
        let stored = try octal(header[148..<156], field: "checksum of \(name)")
        var sum = 0
        for (index, byte) in header.enumerated() { sum += (148..<156).contains(index) ? 0x20 : Int(byte) }
        guard sum == stored else { throw bad("has a corrupt header at \(name)") }
    }

    private func makeFolder(_ url: URL) throws {
        do { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) } catch {
            throw UpdateError.io(path: url.path, reason: error.localizedDescription)
        }
    }

    private func bad(_ reason: String) -> UpdateError { .badBundle(path: archive.path, reason: reason) }
}

/// Exact-size reads over a gzip stream.
private struct BlockReader {
    let gzip: GzipFileReader
    var buffer: [UInt8] = []
    var position = 0

    init(archive: URL) throws {
        do { gzip = try GzipFileReader(path: archive.path) } catch {
            throw UpdateError.io(path: archive.path, reason: "\(error)")
        }
    }

    /// Up to `count` bytes; fewer only at the end of the stream.
    mutating func read(_ count: Int) throws -> [UInt8] {
        var out: [UInt8] = []
        while out.count < count {
            if position == buffer.count {
                guard let chunk = try next() else { break }
                buffer = chunk
                position = 0
            }
            let take = min(count - out.count, buffer.count - position)
            out += buffer[position..<position + take]
            position += take
        }
        return out
    }

    mutating func skip(_ count: Int) throws -> Bool {
        var left = count
        while left > 0 {
            let chunk = try read(min(left, 1 << 20))
            if chunk.isEmpty { return false }
            left -= chunk.count
        }
        return true
    }

    private mutating func next() throws -> [UInt8]? {
        do { return try gzip.read(maxBytes: 1 << 20) } catch {
            throw UpdateError.badBundle(path: gzip.path, reason: "is not a whole gzip stream: \(error)")
        }
    }
}
