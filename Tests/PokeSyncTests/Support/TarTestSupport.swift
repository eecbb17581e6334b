import Foundation
import Testing

/// Helpers for the tar tests: real programs, crafted archives, folder snapshots.
enum TarTestSupport {
    /// The script that crafts hostile archives.
    static let craftScript = TestPaths.support.appendingPathComponent("craft_tar.py")

    /// Runs a program and expects it to succeed; returns its standard output.
    static func runChecked(_ name: String, _ arguments: [String],
                           sourceLocation: SourceLocation = #_sourceLocation) async throws -> Data {
        let result = try await runProgram(name, arguments)
        #expect(result.status == 0, "\(name) \(arguments) failed: \(result.stderr)", sourceLocation: sourceLocation)
        return result.stdout
    }

    /// Crafts the archive `kind` (see craft_tar.py) at `folder/kind.tar.gz`.
    static func craft(_ kind: String, in folder: URL, count: Int = 0) async throws -> String {
        let path = folder.appendingPathComponent("\(kind).tar.gz").path
        _ = try await runChecked("python3", [craftScript.path, kind, path, String(count)])
        return path
    }

    /// Every path below `folder` (relative, sorted), with sizes for files: what a test
    /// compares before and after an extraction to prove nothing else was written.
    static func snapshot(_ folder: URL) -> [String] {
        var paths: [String] = []
        let enumerator = FileManager.default.enumerator(atPath: folder.path)
        while let relative = enumerator?.nextObject() as? String {
            let attributes = enumerator?.fileAttributes ?? [:]
            paths.append("\(relative) \(attributes[.type] as? FileAttributeType == .typeDirectory ? "dir" : "\(attributes[.size] ?? 0)")")
        }
        return paths.sorted()
    }

    /// The process's peak resident set size in bytes (VmHWM), where /proc has it.
    static func peakResidentBytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let kilobytes = line.split(separator: " ").compactMap { Int($0) }.first
            return kilobytes.map { $0 * 1024 }
        }
        return nil
    }
}
