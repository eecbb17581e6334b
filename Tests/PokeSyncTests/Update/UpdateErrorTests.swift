import Foundation
import PokedexReader
import PokedexUpdater
import Testing
@testable import PokeSyncCore
@testable import pokesync

/// An `UpdateError` speaks to an app (no command-line flags, a recovery to act
/// on); `pokesync install` still names its flags, byte for byte as before.
@Suite("Update errors for apps")
struct UpdateErrorTests {
    static let every: [UpdateError] = [
        .badBundle(path: "pokedex-2.tar.gz", reason: "is truncated"),
        .digestMismatch(path: "pokedex-2.tar.gz", expected: "aa", actual: "bb"),
        .newerSchema(source: "index.json", schemaVersion: 9, supported: 3),
        .downgradeRefused(source: "index.json", installed: 2, offered: 1),
        .locked(path: "/device"),
        .unreachable(source: "https://x/index.json", reason: "timed out: nothing received for 30 s"),
        .io(path: "/device/.tmp/x", reason: "No space left on device"),
        .unreadable(path: "/device/current/pokedex.sqlite", reason: "file is not a database"),
        .notADeviceFolder(path: "/Documents", reason: "it holds notes.txt"),
    ]

    @Test("no message names a flag; each says what the app can do")
    func messagesAndRecovery() {
        for error in Self.every {
            #expect(!error.description.contains("--"), "\(error)")
        }
        #expect(Self.every.map(\.recovery) == [.retryLater, .retryLater, .updateApp, .nothingToDo, .retryLater,
                                                .retryLater, .retryLater, .retryLater, .useAnotherFolder])
        // A read failure is not called a write failure.
        #expect(UpdateError.unreadable(path: "p", reason: "r").description == "cannot read p: r")
        #expect(UpdateError.io(path: "p", reason: "r").description == "cannot write p: r")
    }

    @Test("the command line adds its flags to the library's messages, as it printed them before")
    func commandLineHints() {
        #expect(CommandError.install(.downgradeRefused(source: "b", installed: 2, offered: 1)).description
                == "b offers version 1, older than the installed 2; refused (use --allow-downgrade)")
        #expect(CommandError.install(.unreachable(source: "u", reason: "timed out: nothing received for 3 s")).description
                == "cannot read u: timed out: nothing received for 3 s (--timeout)")
        #expect(CommandError.install(.unreachable(source: "u", reason: "404")).description == "cannot read u: 404")
        #expect(CommandError.install(.unreadable(path: "p", reason: "r")).exitStatus == .ioError)
    }
}
