import Foundation
import Testing
@testable import PokeSyncCore
import PokeArchive

@Suite("zlib")
struct ZlibTests {
    static let formats: [CompressionFormat] = [.zlib, .gzip, .raw]

    @Test("round trip of random and JSON-like data", arguments: formats, [false, true])
    func roundTrip(format: CompressionFormat, jsonLike: Bool) throws {
        var generator = SeededRandom(seed: 1)
        for size in [0, 1, 100, 70_000, 1_500_000] {
            let original = jsonLike ? jsonLikeBytes(count: size, using: &generator)
                                    : randomBytes(count: size, using: &generator)
            let compressed = try Zlib.compress(original, format: format)
            #expect(try Zlib.decompress(compressed, format: format) == original)
            if jsonLike && size > 1000 { #expect(compressed.count * 5 < original.count) }
        }
    }

    @Test("each format writes its own framing")
    func framing() throws {
        let original = Array("{\"name\": \"pikachu\"}".utf8)
        #expect(try Zlib.compress(original, format: .zlib).prefix(2) == [0x78, 0x9c])
        #expect(try Zlib.compress(original, format: .gzip).prefix(3) == [0x1f, 0x8b, 0x08])
        let raw = try Zlib.compress(original, format: .raw)
        #expect(throws: CompressionError.self) { try Zlib.decompress(raw, format: .zlib) }
        #expect(try Zlib.decompress(Data(raw), format: .raw) == original)
        #expect(try Zlib.compressedData(original, format: .raw) == Data(raw))
    }

    @Test("chunked input in odd sizes gives the same bytes", arguments: [1, 7, 4093, 65_537])
    func chunkedStreaming(chunkSize: Int) throws {
        var generator = SeededRandom(seed: UInt64(chunkSize))
        let original = jsonLikeBytes(count: 300_000, using: &generator)
        for format in Self.formats {
            let deflater = try Deflater(format: format, level: 6)
            var compressed: [UInt8] = []
            for start in stride(from: 0, to: original.count, by: chunkSize) {
                try deflater.compress(original[start..<min(start + chunkSize, original.count)],
                                      into: &compressed, finish: false)
            }
            try deflater.compress([], into: &compressed, finish: true)
            #expect(deflater.isFinished)
            #expect(compressed == (try Zlib.compress(original, format: format)))

            let inflater = try Inflater(format: format)
            var restored: [UInt8] = []
            // Feed the compressed bytes back in random splits.
            var start = 0
            while start < compressed.count {
                let end = min(compressed.count, start + Int.random(in: 1...(2 * chunkSize), using: &generator))
                try inflater.decompress(compressed[start..<end], into: &restored)
                start = end
            }
            try inflater.finish()
            #expect(restored == original)
            #expect(inflater.totalOutputCount == original.count)
        }
    }

    @Test("the output limit is enforced", arguments: formats)
    func limit(format: CompressionFormat) throws {
        let original = [UInt8](repeating: 0x41, count: 100_000)
        let compressed = try Zlib.compress(original, format: format)
        #expect(try Zlib.decompress(compressed, format: format, limit: 100_000) == original)
        #expect(throws: CompressionError.outputTooLarge(limit: 99_999)) {
            try Zlib.decompress(compressed, format: format, limit: 99_999)
        }
        // Across many small calls the limit counts the total, not each call.
        let inflater = try Inflater(format: format)
        var output: [UInt8] = []
        #expect(throws: CompressionError.outputTooLarge(limit: 50_000)) {
            for byte in compressed { try inflater.decompress([byte], into: &output, limit: 50_000) }
        }
        #expect(output.count <= 50_001)
    }

    @Test("a truncated stream is reported as truncated", arguments: formats)
    func truncated(format: CompressionFormat) throws {
        var generator = SeededRandom(seed: 5)
        let original = jsonLikeBytes(count: 50_000, using: &generator)
        let compressed = try Zlib.compress(original, format: format)
        for cut in [0, 1, 2, compressed.count / 2, compressed.count - 1] {
            #expect(throws: CompressionError.truncated, "cut at \(cut)") {
                try Zlib.decompress(compressed.prefix(cut), format: format)
            }
        }
        let inflater = try Inflater(format: format)
        var output: [UInt8] = []
        try inflater.decompress(compressed.dropLast(), into: &output)
        #expect(!inflater.isFinished)
        #expect(throws: CompressionError.truncated) { try inflater.finish() }
        #expect(CompressionError.truncated.exitStatus == .dataError)
    }

    @Test("flipped bytes give corrupt data, never wrong output", arguments: [CompressionFormat.zlib, .gzip])
    func flippedBytes(format: CompressionFormat) throws {
        var generator = SeededRandom(seed: 9)
        let original = jsonLikeBytes(count: 20_000, using: &generator)
        let compressed = try Zlib.compress(original, format: format)
        var corruptCount = 0
        for position in compressed.indices {
            var damaged = compressed
            damaged[position] ^= 0x5A
            do {
                // The checksum catches every change of the output; a flip that still decodes
                // must have hit padding bits after the final block.
                #expect(try Zlib.decompress(damaged, format: format) == original, "flip at \(position)")
            } catch CompressionError.corruptData {
                corruptCount += 1
            } catch CompressionError.truncated {
                // A flip can turn a code into a longer one that runs past the end.
            }
        }
        #expect(corruptCount > compressed.count / 2)
        // The header and the checksum trailer are always checked.
        for position in [0, compressed.count - 1] {
            var damaged = compressed
            damaged[position] ^= 0x01
            try expectCorruptData { try Zlib.decompress(damaged, format: format) }
        }
    }

    @Test("an invalid block type in raw deflate is corrupt data")
    func invalidRawBlock() throws {
        var compressed = try Zlib.compress(Array("Squirtle".utf8), format: .raw)
        compressed[0] = 0x07  // final block of type 3, which is reserved
        try expectCorruptData { try Zlib.decompress(compressed, format: .raw) }
    }

    @Test("bytes after the end of a zlib stream are corrupt data")
    func trailingBytes() throws {
        let compressed = try Zlib.compress(Array("abc".utf8), format: .zlib)
        #expect(throws: CompressionError.corruptData("unexpected bytes after the end of the stream")) {
            try Zlib.decompress(compressed + [0], format: .zlib)
        }
    }

    @Test("concatenated gzip members decompress in turn")
    func multiMemberGzip() throws {
        let first = try Zlib.compress(Array("Bulbasaur ".utf8), format: .gzip)
        let second = try Zlib.compress(Array("Ivysaur".utf8), format: .gzip)
        #expect(try Zlib.decompress(first + second, format: .gzip) == Array("Bulbasaur Ivysaur".utf8))
    }

    @Test("a finished deflater refuses more input")
    func finishedDeflater() throws {
        let deflater = try Deflater(format: .gzip)
        var output: [UInt8] = []
        try deflater.compress(Array("x".utf8), into: &output, finish: true)
        let finished = output
        try deflater.compress([UInt8](), into: &output, finish: true)
        #expect(output == finished)
        #expect(throws: CompressionError.self) { try deflater.compress(Array("y".utf8), into: &output, finish: false) }
        #expect(throws: CompressionError.zlib(code: -2, message: "compression level 42 is not in 0...9")) {
            try Deflater(format: .zlib, level: 42)
        }
    }

    // MARK: gzip files

    @Test("a file written by GzipFileWriter is read by the gzip program")
    func writerOutputReadByGzip() async throws {
        try await withTemporaryDirectory { directory in
            var generator = SeededRandom(seed: 21)
            let original = jsonLikeBytes(count: 3_000_000, using: &generator)
            let path = directory.appendingPathComponent("bundle.tar.gz").path
            let writer = try GzipFileWriter(path: path, level: 6)
            // Mix the three input kinds and odd chunk sizes.
            var start = 0
            var round = 0
            while start < original.count {
                let end = min(original.count, start + [1, 4093, 70_001][round % 3])
                switch round % 3 {
                case 0: try writer.write(Array(original[start..<end]))
                case 1: try writer.write(Data(original[start..<end]))
                default: try original[start..<end].withUnsafeBytes { try writer.write($0) }
                }
                start = end
                round += 1
            }
            try writer.close()
            try writer.close()  // a second close does nothing
            #expect(throws: CompressionError.self) { try writer.write([1, 2, 3]) }

            let fileSize = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
            #expect(writer.compressedByteCount == fileSize)
            #expect(writer.uncompressedByteCount == original.count)
            try await runTool("gzip", ["-t", path])
            #expect(try await runProgram("gzip", ["-dc", path]).stdout == Data(original))
        }
    }

    @Test("a file made by the gzip program is read by GzipFileReader")
    func gzipOutputReadByReader() async throws {
        try await withTemporaryDirectory { directory in
            var generator = SeededRandom(seed: 22)
            let original = jsonLikeBytes(count: 1_000_000, using: &generator)
            let plainPath = directory.appendingPathComponent("pokemon.json").path
            try Data(original).write(to: URL(fileURLWithPath: plainPath))
            // gzip stores the file name and mtime in its header; the reader must skip both.
            try await runTool("gzip", ["-9", "-k", plainPath])
            let reader = try GzipFileReader(path: plainPath + ".gz")
            var restored: [UInt8] = []
            while let chunk = try reader.read(maxBytes: 9_999) {
                #expect(!chunk.isEmpty && chunk.count <= 9_999)
                restored += chunk
            }
            #expect(restored == original)
            #expect(try reader.read(maxBytes: 10) == nil)

            // Two members one after another, as `cat a.gz b.gz` makes, read as one stream.
            let member = try Data(contentsOf: URL(fileURLWithPath: plainPath + ".gz"))
            let twoMembersPath = directory.appendingPathComponent("twice.json.gz").path
            try (member + member).write(to: URL(fileURLWithPath: twoMembersPath))
            #expect(try GzipFileReader(path: twoMembersPath).readToEnd() == original + original)
            #expect(throws: CompressionError.outputTooLarge(limit: 1_500_000)) {
                try GzipFileReader(path: twoMembersPath).readToEnd(limit: 1_500_000)
            }
        }
    }

    @Test("the same input written twice gives identical bytes")
    func deterministicOutput() throws {
        try withTemporaryDirectory { directory in
            var generator = SeededRandom(seed: 23)
            let original = jsonLikeBytes(count: 500_000, using: &generator)
            var files: [Data] = []
            for (index, chunkSize) in [1_000, 65_536].enumerated() {
                let path = directory.appendingPathComponent("copy-\(index).gz").path
                let writer = try GzipFileWriter(path: path)
                for start in stride(from: 0, to: original.count, by: chunkSize) {
                    try writer.write(original[start..<min(start + chunkSize, original.count)])
                }
                try writer.close()
                files.append(try Data(contentsOf: URL(fileURLWithPath: path)))
            }
            #expect(files[0] == files[1])
            // Magic, deflate, no flags (so no file name), mtime 0, extra flags, OS 255.
            #expect(Array(files[0].prefix(10)) == [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255])
        }
    }

    @Test("a damaged gzip file is reported, after the bytes that could be read")
    func damagedFiles() throws {
        try withTemporaryDirectory { directory in
            var generator = SeededRandom(seed: 24)
            let original = jsonLikeBytes(count: 400_000, using: &generator)
            let compressed = try Zlib.compress(original, format: .gzip)

            let truncatedPath = directory.appendingPathComponent("truncated.gz").path
            try Data(compressed.prefix(compressed.count / 2)).write(to: URL(fileURLWithPath: truncatedPath))
            let reader = try GzipFileReader(path: truncatedPath)
            var restored: [UInt8] = []
            #expect(throws: CompressionError.truncated) {
                while let chunk = try reader.read(maxBytes: 50_000) { restored += chunk }
            }
            #expect(!restored.isEmpty && restored == Array(original.prefix(restored.count)))

            var damaged = compressed
            damaged[damaged.count - 6] ^= 0xFF  // inside the CRC-32 trailer
            let damagedPath = directory.appendingPathComponent("damaged.gz").path
            try Data(damaged).write(to: URL(fileURLWithPath: damagedPath))
            try expectCorruptData { try GzipFileReader(path: damagedPath).readToEnd() }

            let missingPath = directory.appendingPathComponent("missing.gz").path
            #expect(throws: CompressionError.fileAccess(path: missingPath, operation: "open",
                                                        reason: "No such file or directory")) {
                try GzipFileReader(path: missingPath)
            }
            let unwritable = directory.appendingPathComponent("no-such-folder/out.gz").path
            do {
                _ = try GzipFileWriter(path: unwritable)
                Issue.record("created a file in a missing folder")
            } catch let error as CompressionError {
                #expect(error.exitStatus == .ioError)
                #expect(error.description == "cannot create \(unwritable): No such file or directory")
            }
        }
    }
}

/// Expects `body` to throw `CompressionError.corruptData`, printed as one clear line.
private func expectCorruptData(_ body: () throws -> [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws {
    do {
        _ = try body()
        Issue.record("decompression succeeded", sourceLocation: sourceLocation)
    } catch let error as CompressionError {
        guard case .corruptData = error else {
            Issue.record("expected corruptData, got \(error)", sourceLocation: sourceLocation)
            return
        }
        #expect(error.exitStatus == .dataError, sourceLocation: sourceLocation)
        #expect(error.description.hasPrefix("corrupt compressed data: "), sourceLocation: sourceLocation)
        #expect(!error.description.contains("\n"), sourceLocation: sourceLocation)
    }
}

/// Text shaped like PokeAPI documents: repeated keys, names and numbers, `count` bytes long.
private func jsonLikeBytes(count: Int, using generator: inout SeededRandom) -> [UInt8] {
    let names = ["bulbasaur", "ivysaur", "venusaur", "charmander", "pikachu", "flabébé", "mr-mime"]
    let keys = ["\"name\"", "\"url\"", "\"base_stat\"", "\"effort\"", "\"is_hidden\"", "\"slot\""]
    var text: [UInt8] = []
    text.reserveCapacity(count + 200)
    while text.count < count {
        let key = keys[Int(generator.next() % UInt64(keys.count))]
        let name = names[Int(generator.next() % UInt64(names.count))]
        let number = generator.next() % 1025
        text += Array("    {\(key): \"\(name)\", \"url\": \"https://pokeapi.co/api/v2/pokemon/\(number)/\"},\n".utf8)
    }
    return Array(text.prefix(count))
}
