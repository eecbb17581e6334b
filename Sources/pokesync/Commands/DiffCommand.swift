import Foundation
import PokeSyncCore

/// `pokesync diff [FROM [TO]] [--json]`: default the last two versions.
struct DiffCommand: MirrorCommand {
    /// `pokesync help diff`.
    static let spec = CommandSpec(name: "diff", positionals: "[FROM [TO]]", positionalCount: 0...2,
                                  usage: [.optional(.json), .optional(.mirror)], sections: [.text("""
        What was added, removed and changed between two versions (default: the last two),
        with the JSON paths that differ. A change of formatting or serving host is not a change.
        """)])

    let arguments: Arguments

    func execute() throws -> ExitStatus {
        let store = try Store(layout: layout, create: false, readOnly: true)
        return try store.snapshot { try diff(store) }
    }

    private func diff(_ store: Store) throws -> ExitStatus {
        let numbers = try store.versions().map(\.number)
        let asked = try arguments.positionals.map { text -> Int in
            guard let number = Int(text) else { throw UsageError("a version is a number (got \"\(text)\")") }
            return try Store.resolveVersion(number, among: numbers)
        }
        let (from, to): (Int, Int)
        switch asked.count {
        case 2: (from, to) = (asked[0], asked[1])
        case 1: (from, to) = (asked[0], numbers.last!)
        default:
            guard numbers.count >= 2 else { throw UsageError("a diff needs two versions; the mirror has \(numbers.count)") }
            (from, to) = (numbers[numbers.count - 2], numbers[numbers.count - 1])
        }
        let diff = try VersionDiff.compute(store: store, from: from, to: to)
        if arguments.has(.json) {
            print(String(decoding: try diff.jsonData(), as: UTF8.self))
        } else {
            print(diff.text())
        }
        return .success
    }
}
