/// Why an export, a bundle or a delta could not be made or read as the format says.
package enum ExportError: PokeSyncError, Equatable {
    /// A version whose documents cannot make a consistent device database: a dangling
    /// reference, or a document without a field the schema needs. The message names the
    /// document or reference.
    case deviceData(String)
    /// A bundle whose manifest or contents are not what the format says.
    case bundleFormat(file: String, reason: String)
    /// A file in the bundles folder, under a name export would write, that is damaged or not
    /// what its name says: no index may name it. The message says how to repair it.
    case damagedBundle(file: String, problem: String)
    /// A delta that cannot be built, naming the file.
    case deltaBuild(path: String, reason: String)
    /// A version whose kinds cannot make a bundle (a mirror narrowed to pokemon alone holds
    /// no species for them to name): nothing is written and the index is left as it is. Not
    /// a failure of the night: the mirror's kinds were chosen so (`export` says it and exits 0).
    case noBundleForKinds(version: Int, kinds: [ResourceKind], lacking: [ResourceKind])

    package var code: ErrorCode {
        switch self {
        case .deviceData: .deviceData
        case .bundleFormat: .bundleFormat
        case .damagedBundle: .damagedBundle
        case .deltaBuild: .deltaBuild
        case .noBundleForKinds: .noBundleForKinds
        }
    }

    package var description: String {
        switch self {
        case .deviceData(let message):
            return message
        case .bundleFormat(let file, let reason):
            return "\(file): \(reason)"
        case .damagedBundle(let file, let problem):
            return "\(file) is damaged or not what its name says, so no index.json may name it (\(problem)); "
                + "remove it, or run export again with --replace-damaged to move it aside and write it afresh"
        case .deltaBuild(let path, let reason):
            return "cannot build a delta: \(path) \(reason)"
        case .noBundleForKinds(let version, let kinds, let lacking):
            let held = kinds.count > 4 ? "\(kinds.count) kinds" : kinds.map(\.apiName).joined(separator: ", ")
            return "no bundle for version \(version): it holds \(held) without \(lacking.map(\.apiName).joined(separator: ", ")), "
                + "which its references name; index.json is left as it is (mirror them with `pokesync sync --kinds default` "
                + "or a list that names them)"
        }
    }
}
