/// Something that shows a crawl's progress while it runs (the command line's live
/// line, say): the crawl reads nothing from it, and only asks it to make room for a
/// log line and to go away at the end.
package protocol ProgressDisplay: Sendable {
    /// Clears what it shows, so that a log line can be printed in its place.
    func clearLine()
    /// Stops showing progress and clears what it showed.
    func stop()
}
