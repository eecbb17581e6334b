import Foundation
import PokeArchive
import Testing

@Suite("tar writing and reading")
struct TarTests {
    /// A long name that needs the ustar prefix: 8 + 90 + 1 + 94 bytes, sorted last.
    static let longName = "sprites/" + String(repeating: "x", count: 90) + "/" + String(repeating: "y", count: 90) + ".png"

    /// Writes a bundle-shaped archive: folders, bytes, a file streamed from disk, a long name.
    /// Returns the archive path and the expected files (name to content).
    static func writeSample(in folder: URL, name: String = "pokedex-7.tar.gz") throws -> (String, [String: [UInt8]]) {
        var generator = SeededRandom(seed: 77)
        let database = randomBytes(count: 3_000_000, using: &generator)
        let databasePath = folder.appendingPathComponent("source.sqlite").path
        try Data(database).write(to: URL(fileURLWithPath: databasePath))
        let files: [String: [UInt8]] = [
            "manifest.json": Array(#"{"format": "pokesync-bundle", "version": 7}"#.utf8),
            "pokedex.sqlite": database,
            "sprites/pokemon/25.png": randomBytes(count: 1_234, using: &generator),
            "sprites/pokemon/empty.png": [],
            longName: Array(repeating: 0x42, count: 512),
        ]
        let path = folder.appendingPathComponent(name).path
        let writer = try TarWriter(path: path, level: 9)
        try writer.addFile("manifest.json", contents: files["manifest.json"]!)
        try writer.addFile("pokedex.sqlite", contentsOfFile: databasePath)
        try writer.addDirectory("sprites")
        try writer.addDirectory("sprites/pokemon/")
        try writer.addFile("sprites/pokemon/25.png", contents: Data(files["sprites/pokemon/25.png"]!))
        try writer.addFile("sprites/pokemon/empty.png", contents: [UInt8]())
        try writer.addFile(longName, contents: files[longName]!)
        try writer.finish()
        try writer.finish()  // a second finish does nothing
        #expect(writer.entryCount == 7)
        #expect(writer.tarByteCount % 10_240 == 0)
        return (path, files)
    }

    static let expectedNames = ["manifest.json", "pokedex.sqlite", "sprites/", "sprites/pokemon/",
                                "sprites/pokemon/25.png", "sprites/pokemon/empty.png", longName]

    @Test("the writer's archive is read by gzip, tar and Python's tarfile, with equal contents")
    func readByRealTools() async throws {
        try await withTemporaryDirectory { folder in
            let (path, files) = try Self.writeSample(in: folder)
            _ = try await TarTestSupport.runChecked("gzip", ["-t", path])
            let listing = String(decoding: try await TarTestSupport.runChecked("tar", ["tzf", path]), as: UTF8.self)
            #expect(listing.split(separator: "\n").map(String.init) == Self.expectedNames)

            let out = folder.appendingPathComponent("by-tar")
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: false)
            _ = try await TarTestSupport.runChecked("tar", ["xzf", path, "-C", out.path])
            for (name, content) in files {
                #expect(try Data(contentsOf: out.appendingPathComponent(name)) == Data(content), "\(name)")
            }

            // Python's view of every header: fixed metadata, ustar format, contents by hash.
            let script = """
            import hashlib, json, sys, tarfile
            with tarfile.open(sys.argv[1], "r:gz") as t:
                rows = []
                for m in t.getmembers():
                    data = t.extractfile(m).read() if m.isfile() else b""
                    rows.append([m.name, m.type.decode(), m.size, oct(m.mode), m.uid, m.gid, m.uname, m.gname,
                                 m.mtime, hashlib.sha256(data).hexdigest()])
                print(json.dumps(rows))
            """
            let output = try await TarTestSupport.runChecked("python3", ["-c", script, path])
            let rows = try #require(try JSONSerialization.jsonObject(with: output) as? [[Any]])
            #expect(rows.count == 7)
            for row in rows {
                let name = row[0] as! String
                let isDirectory = (row[1] as! String) == "5"
                #expect(row[3] as? String == (isDirectory ? "0o755" : "0o644"), "\(name)")
                #expect(row[4] as? Int == 0 && row[5] as? Int == 0 && row[8] as? Int == 0, "\(name)")
                #expect(row[6] as? String == "" && row[7] as? String == "", "\(name)")
                if !isDirectory {
                    #expect(row[9] as? String == SHA256.hash(files[name]!).hex, "\(name)")
                }
            }
        }
    }

    @Test("TarArchive lists and reads the writer's archive, SafeExtractor extracts it")
    func readByPokeArchive() throws {
        try withTemporaryDirectory { folder in
            let (path, files) = try Self.writeSample(in: folder)
            let limits = TarLimits(maxUnpackedBytes: 4_000_000, maxEntryCount: 10, maxCompressedBytes: 4_000_000)
            let archive = TarArchive(path: path, limits: limits)
            let entries = try archive.entries()
            #expect(entries.map(\.name) == Self.expectedNames.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 })
            #expect(entries[1] == TarEntry(name: "pokedex.sqlite", kind: .file, size: 3_000_000))
            #expect(entries[2].kind == .directory)
            #expect(try archive.contents(of: "manifest.json", maxBytes: 100) == files["manifest.json"])
            #expect(try archive.contents(of: Self.longName, maxBytes: 512) == files[Self.longName])
            var streamed: [UInt8] = []
            try archive.streamContents(of: "pokedex.sqlite") { streamed += $0 }
            #expect(streamed == files["pokedex.sqlite"])
            #expect(throws: TarError.entryNotFound(archive: path, entry: "sprites")) {
                try archive.contents(of: "sprites", maxBytes: 10)
            }
            #expect(throws: TarError.overLimit(archive: path, entry: "pokedex.sqlite",
                                               reason: "3000000 bytes, more than the 1000 accepted")) {
                try archive.contents(of: "pokedex.sqlite", maxBytes: 1000)
            }

            let out = folder.appendingPathComponent("extracted").path
            let extracted = try SafeExtractor(limits: limits).extract(archive: path, to: out)
            #expect(extracted == entries)
            for (name, content) in files {
                let filePath = out + "/" + name
                #expect(try Data(contentsOf: URL(fileURLWithPath: filePath)) == Data(content), "\(name)")
                let mode = try FileManager.default.attributesOfItem(atPath: filePath)[.posixPermissions] as? Int
                #expect(mode == 0o644, "\(name)")
            }
            let folderMode = try FileManager.default.attributesOfItem(atPath: out + "/sprites/pokemon")[.posixPermissions] as? Int
            #expect(folderMode == 0o755)
        }
    }

    @Test("the same entries written twice give byte-identical files with a fixed gzip header")
    func deterministic() async throws {
        try await withTemporaryDirectory { folder in
            let first = folder.appendingPathComponent("one")
            let second = folder.appendingPathComponent("two")
            for sub in [first, second] { try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: false) }
            let (pathOne, _) = try Self.writeSample(in: first)
            let (pathTwo, _) = try Self.writeSample(in: second)
            let bytesOne = try Data(contentsOf: URL(fileURLWithPath: pathOne))
            #expect(bytesOne == (try Data(contentsOf: URL(fileURLWithPath: pathTwo))))
            #expect(Array(bytesOne.prefix(10)) == [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 255])  // XFL 2: level 9
            let tarBytes = try await TarTestSupport.runChecked("gzip", ["-dc", pathOne])
            #expect(tarBytes.count % 10_240 == 0)
            // The long name sits in ustar's prefix field (offset 345), split at the last fitting "/".
            let longHeader = try #require(tarBytes.range(of: Data(String(repeating: "y", count: 90).utf8)))
            let headerStart = longHeader.lowerBound / 512 * 512
            let prefix = tarBytes[(headerStart + 345)..<(headerStart + 345 + 98)]
            #expect(String(decoding: prefix, as: UTF8.self) == "sprites/" + String(repeating: "x", count: 90))
        }
    }

    @Test("the writer refuses names it cannot write or that extraction would refuse")
    func refusedNames() throws {
        try withTemporaryDirectory { folder in
            let path = folder.appendingPathComponent("refused.tar.gz").path
            let cases: [(String, String)] = [
                ("../x", "a name that leaves the folder"),
                ("/etc/passwd", "an absolute name"),
                ("a//b", "an empty component in the name"),
                ("./a", "a \".\" component in the name"),
                ("a\\b", "a backslash in the name"),
                ("a\nb", "a control character in the name"),
                ("", "an empty name"),
                (String(repeating: "x", count: 101), "a name that does not fit a ustar header (155-byte prefix + 100-byte name)"),
                (String(repeating: "x", count: 256), "a name component longer than 255 bytes"),
            ]
            for (name, reason) in cases {
                let writer = try TarWriter(path: path)
                #expect(throws: TarError.invalidEntry(archive: path, entry: name, reason: reason)) {
                    try writer.addFile(name, contents: [1])
                }
            }
            let writer = try TarWriter(path: path)
            try writer.addFile("b", contents: [1])
            let order = "out of order: names must be sorted by their UTF-8 bytes, without duplicates"
            #expect(throws: TarError.invalidEntry(archive: path, entry: "a", reason: order)) { try writer.addFile("a", contents: [1]) }
            #expect(throws: TarError.invalidEntry(archive: path, entry: "b", reason: order)) { try writer.addDirectory("b") }
            #expect(throws: TarError.invalidEntry(archive: path, entry: "b/c", reason: "a name inside \"b\", which is a file")) {
                try writer.addFile("b/c", contents: [1])
            }
            let missing = folder.appendingPathComponent("missing").path
            #expect(throws: TarError.io(path: missing, operation: "open", reason: "No such file or directory")) {
                try writer.addFile("c", contentsOfFile: missing)
            }
            try writer.finish()
            let limits = TarLimits(maxUnpackedBytes: 10, maxEntryCount: 10, maxCompressedBytes: 10_000)
            #expect(try TarArchive(path: path, limits: limits).entries() == [TarEntry(name: "b", kind: .file, size: 1)])
        }
    }

    @Test("archives written by GNU tar and by Python's tarfile are read and extracted")
    func readsOtherWriters() async throws {
        try await withTemporaryDirectory { folder in
            let source = folder.appendingPathComponent("data/sprites/pokemon")
            try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
            var generator = SeededRandom(seed: 3)
            let png = randomBytes(count: 70_000, using: &generator)
            try Data(png).write(to: source.appendingPathComponent("1.png"))
            let limits = TarLimits(maxUnpackedBytes: 1_000_000, maxEntryCount: 100, maxCompressedBytes: 1_000_000)
            for format in ["gnu", "ustar", "posix"] {
                let path = folder.appendingPathComponent("\(format).tar.gz").path
                _ = try await TarTestSupport.runChecked("tar", ["--format=\(format)", "-czf", path, "-C", folder.path, "data"])
                let out = folder.appendingPathComponent("out-\(format)").path
                if format == "posix" {
                    // GNU tar's pax format writes an extended header per entry (atime, ctime): refused.
                    #expect(throws: TarError.self) { try SafeExtractor(limits: limits).extract(archive: path, to: out) }
                    #expect(!FileManager.default.fileExists(atPath: out))
                    continue
                }
                let entries = try SafeExtractor(limits: limits).extract(archive: path, to: out)
                #expect(entries.map(\.name) == ["data", "data/sprites", "data/sprites/pokemon", "data/sprites/pokemon/1.png"])
                #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/data/sprites/pokemon/1.png")) == Data(png))
            }
            // Python's tarfile in ustar format is read; its default pax format adds an extended
            // header per entry (fractional mtimes), which is refused.
            for format in ["USTAR_FORMAT", "PAX_FORMAT"] {
                let path = folder.appendingPathComponent("python-\(format).tar.gz").path
                _ = try await TarTestSupport.runChecked("python3", ["-c", """
                    import sys, tarfile
                    with tarfile.open(sys.argv[1], "w:gz", format=tarfile.\(format)) as t:
                        t.add(sys.argv[2], arcname="data")
                    """, path, folder.appendingPathComponent("data").path])
                let archive = TarArchive(path: path, limits: limits)
                if format == "PAX_FORMAT" {
                    #expect(throws: TarError.unsafeEntry(archive: path, entry: "././@PaxHeader",
                                                         reason: "a pax extended header, which extraction refuses")) {
                        try archive.entries()
                    }
                    continue
                }
                let entries = try archive.entries()
                #expect(entries.map(\.name).sorted() == ["data", "data/sprites", "data/sprites/pokemon", "data/sprites/pokemon/1.png"])
            }
        }
    }
}
