/// The thresholds by which a run judges a linked-file host (sprites, cries): when the host
/// is given up for the rest of the run, and when what it answered is not published. In one
/// place: ``HostWatch``, the sprite phase, the publish-time guard and `--help` read them here.
package enum FileHostLimits {
    /// Files settled in a row without a delivery (a 200 or a 304) that give a host up, when
    /// at least ``failuresInTheRun`` of them failed outright (a 404/410 is the rest).
    package static let undeliveredInARow = 20
    /// Of those, the failures needed: a quarter, so a run of 404s alone never gives a host up.
    package static let failuresInTheRun = undeliveredInARow / 4

    /// The recent files over which a host's share of failures is counted.
    package static let recentFiles = 100
    /// More than this share of its recent files failed outright gives a host up: the files
    /// it delivers no longer hide the ones it fails (a host failing 70% of its files always
    /// delivers some, so a run of failures never grows long).
    package static let failureShare = 0.5
    /// Files a host settles before its share counts: a few failures first are not a share.
    package static let filesBeforeTheShare = 20

    /// What the files a host failed may cost the run: their time from first attempt to
    /// last, retries included, summed and divided by the run's request slots
    /// (`--concurrency`). A host that delivers, however slowly, spends none of it.
    package static let failureTime: Duration = .seconds(300)

    /// New bytes answered for this many files that held other bytes: a placeholder (a
    /// CDN's image for anything, a wrong branch), refused, and its host given up.
    package static let placeholderFiles = 10

    /// More than this share of a tree's files the latest version holds coming back with
    /// other bytes in one run is published only with `--allow-mass-change`.
    package static let massChangeShare = 0.2
    /// ... and at least this many files: on a small mirror a few changes are no mass.
    package static let massChangeMinimum = 20

    /// `20%`, `50%`: a share as the lines and the help say it.
    package static func percent(_ share: Double) -> String {
        "\(Int((share * 100).rounded()))%"
    }
}
