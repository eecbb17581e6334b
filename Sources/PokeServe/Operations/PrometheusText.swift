import Foundation

/// Prometheus' text exposition format (version 0.0.4): each family's `# HELP` and
/// `# TYPE` lines, then its samples, labels quoted and escaped.
struct PrometheusText {
    enum Kind: String {
        case counter, gauge
    }

    private(set) var text = ""

    /// The media type a scraper expects.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// One family: `samples` are its label sets and values (one with no labels: `[:]`).
    mutating func family(_ name: String, _ kind: Kind, _ help: String, _ samples: [([(String, String)], Double)]) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) \(kind.rawValue)\n"
        for (labels, value) in samples {
            text += name
            if !labels.isEmpty {
                text += "{" + labels.map { "\($0.0)=\"\(Self.escape($0.1))\"" }.joined(separator: ",") + "}"
            }
            text += " \(Self.format(value))\n"
        }
    }

    mutating func family(_ name: String, _ kind: Kind, _ help: String, _ value: Double) {
        family(name, kind, help, [([], value)])
    }

    private static func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    /// Whole numbers without a fraction (counters stay exact), others as Swift prints them.
    private static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
