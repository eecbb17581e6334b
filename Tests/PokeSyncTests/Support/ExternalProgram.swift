import Foundation
import Testing

/// What a finished external program gave back.
struct ProgramResult {
    var status: Int32
    var stdout: Data
    var stderr: String
    /// Standard output as text, trimmed of surrounding white space.
    var text: String { String(decoding: stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) }
}

/// Runs a real program (`tar`, `sqlite3`, `gzip`, `cmp`...), found on PATH unless `name`
/// is a path, to the end. Output goes through files, so a chatty program cannot block on a
/// full pipe. Expecting success is the caller's business (see `runTool`). The one
/// runner of programs that run to their end (servers have their own, in Support/).
/// - Parameters:
///   - environment: the child's whole environment; nil: this process's.
///   - heavy: a program that works for seconds waits for a slot (``Process/runToExit(heavy:)``).
@discardableResult
func runProgram(_ name: String, _ arguments: [String], in directory: URL? = nil,
                environment: [String: String]? = nil, heavy: Bool = false) async throws -> ProgramResult {
    let process = Process()
    if name.hasPrefix("/") {
        process.executableURL = URL(fileURLWithPath: name)
        process.arguments = arguments
    } else {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [name] + arguments
    }
    if let directory { process.currentDirectoryURL = directory }
    if let environment { process.environment = environment }
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("pokesync-program-\(UUID().uuidString)")
    let outFile = scratch.appendingPathExtension("out"), errFile = scratch.appendingPathExtension("err")
    _ = FileManager.default.createFile(atPath: outFile.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errFile.path, contents: nil)
    defer {
        try? FileManager.default.removeItem(at: outFile)
        try? FileManager.default.removeItem(at: errFile)
    }
    process.standardOutput = try FileHandle(forWritingTo: outFile)
    process.standardError = try FileHandle(forWritingTo: errFile)
    process.standardInput = FileHandle.nullDevice
    try await process.runToExit(heavy: heavy)
    return ProgramResult(status: process.terminationStatus, stdout: (try? Data(contentsOf: outFile)) ?? Data(),
                         stderr: (try? String(contentsOf: errFile, encoding: .utf8)) ?? "")
}

/// Runs a program that must succeed (an issue is recorded otherwise) and returns its
/// trimmed standard output.
@discardableResult
func runTool(_ name: String, _ arguments: [String], in directory: URL? = nil, heavy: Bool = false,
             sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
    let result = try await runProgram(name, arguments, in: directory, heavy: heavy)
    #expect(result.status == 0, "\(name) \(arguments.joined(separator: " ")): \(result.stderr)", sourceLocation: sourceLocation)
    return result.text
}

/// Runs a Python tool of `Tests/Support` with the real interpreter and returns its output.
func runPython(_ script: String, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
    let python = try PythonInterpreter.path.get()
    return try await runTool(python.path, [TestPaths.support.appendingPathComponent(script).path] + arguments,
                             heavy: true, sourceLocation: sourceLocation)
}
