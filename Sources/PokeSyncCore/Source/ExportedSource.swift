import Foundation

/// What exports say a version came from: `source` in a bundle's manifest and in the
/// device database's `meta` (<doc:PokeSyncCore/Bundles#The-manifest>: "as a phone may see it"). The mirror's own store
/// keeps the source as given, which a resumed or later run compares; this is what leaves
/// the machine.
package enum ExportedSource {
    /// A folder source: its local path names the machine that built the mirror.
    package static let folder = "api-data folder"

    /// An HTTP source's base URL without userinfo, query or fragment
    /// (`http://user:secret@10.0.0.5:8000/api/v2?k=1` is `http://10.0.0.5:8000/api/v2`);
    /// anything else (a folder's path) is ``folder``.
    /// - Parameter recorded: the source as the run was given it (`--source`, `mirror.json`).
    package static func describe(_ recorded: String) -> String {
        let scheme = recorded.prefix { $0 != ":" }.lowercased()
        guard scheme == "http" || scheme == "https" else { return folder }
        guard var components = URLComponents(string: recorded), components.host?.isEmpty == false else {
            // SourceFactory never lets such a URL run; say the scheme only rather than guess at its parts.
            return "\(scheme) source"
        }
        components.user = nil
        components.password = nil
        components.query = nil
        components.fragment = nil
        return components.string ?? "\(scheme) source"
    }
}
