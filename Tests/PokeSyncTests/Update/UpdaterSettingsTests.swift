import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import PokedexReader
import PokedexUpdater

/// The settings keep their own copy of the app's session configuration and hand out only
/// copies, so they cross threads as a `Sendable` value while the app goes on changing its own.
@Suite struct UpdaterSettingsTests {
    @Test("the app's later changes to its configuration do not reach the settings")
    func keepsACopy() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpAdditionalHeaders = ["X-App": "first"]
        configuration.allowsCellularAccess = false
        let settings = UpdaterSettings(timeout: 30, configuration: configuration)
        configuration.httpAdditionalHeaders = ["X-App": "second"]
        configuration.allowsCellularAccess = true

        let kept = settings.configuration
        #expect(kept !== configuration)
        #expect(kept?.httpAdditionalHeaders?["X-App"] as? String == "first")
        #expect(kept?.allowsCellularAccess == false)
    }

    @Test("a change made through the value read stays in that copy; setting a changed one stores it")
    func readsAreCopies() throws {
        var settings = UpdaterSettings(configuration: .ephemeral)
        let first = try #require(settings.configuration)
        first.httpAdditionalHeaders = ["X-App": "changed"]
        #expect(settings.configuration !== first)
        #expect(settings.configuration?.httpAdditionalHeaders?["X-App"] == nil)

        settings.configuration = first
        first.httpAdditionalHeaders = ["X-App": "later"]
        #expect(settings.configuration?.httpAdditionalHeaders?["X-App"] as? String == "changed")
        settings.configuration = nil
        #expect(settings.configuration == nil)
    }

    @Test("without a configuration there is none to read")
    func noConfiguration() {
        #expect(UpdaterSettings().configuration == nil)
        #expect(UpdaterSettings(timeout: 5).timeout == 5)
    }
}
