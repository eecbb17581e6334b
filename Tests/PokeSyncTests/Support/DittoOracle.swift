import Foundation
import Testing

/// pokeapi-ditto 1.0.5, the upstream's own crawler, in a virtual environment: the oracle
/// the schema and api-data tests compare with, and a real client of `serve`.
/// `POKESYNC_DITTO_VENV` names the venv (`.ci/run` makes one), else /opt/ditto-venv.
enum DittoOracle {
    /// The venv folder, when one with ditto in it exists.
    static let venv: URL? = {
        let candidates = [ProcessInfo.processInfo.environment["POKESYNC_DITTO_VENV"], "/opt/ditto-venv"].compactMap { $0 }
        return candidates.map { URL(fileURLWithPath: $0) }.first {
            FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("bin/ditto").path)
        }
    }()

    /// The `ditto` program.
    static var ditto: String? { venv?.appendingPathComponent("bin/ditto").path }
    /// The venv's Python, with pokeapi_ditto and genson importable.
    static var python: String? { venv?.appendingPathComponent("bin/python").path }

    /// Why a test needing it is skipped.
    static let skipMessage: Comment =
        "needs pokeapi-ditto: a venv at /opt/ditto-venv or POKESYNC_DITTO_VENV (python3 -m venv V && V/bin/pip install pokeapi-ditto==1.0.5; .ci/run makes one)"
}
