import Foundation
import PokeSyncCore

/// `pokesync versions [--json]`: every retained version.
struct VersionsCommand: MirrorCommand {
    /// `pokesync help versions`.
    static let spec = CommandSpec(name: "versions", positionals: "", positionalCount: 0...0,
                                  usage: [.optional(.json), .optional(.mirror)],
                                  sections: [.text("Every retained version with its date, mode, counts and source.")])

    let arguments: Arguments

    func execute() throws -> ExitStatus {
        let versions = FileManager.default.fileExists(atPath: layout.storeFile.path)
            ? try Store(layout: layout, create: false, readOnly: true).versions() : []
        if arguments.has(.json) {
            print(try JSONOutput.string(versions, keys: .convertToSnakeCase))
        } else if versions.isEmpty {
            print("no versions yet: run `pokesync full`")
        } else {
            for version in versions {
                print("\(String(version.number).leftPadded(4))  \(version.createdAt)  \(version.mode.rawValue.padded(4))  "
                      + "\(String(version.documents).leftPadded(5)) documents  \(String(version.sprites).leftPadded(6)) sprites  \(version.source)")
            }
        }
        return .success
    }
}

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
    func padded(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}
