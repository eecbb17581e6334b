#!/usr/bin/env bash
# The nightly pokesync job: sync, prune to mirror.json's retention.keep, then export
# the bundles devices download (whenever the newest version has none yet, so a failed
# export is retried the next night).
# Writes a timestamped log under $POKESYNC_MIRROR/logs/ (the newest 30 kept) and
# exits with pokesync's own code, so cron mail and monitoring see failures:
#   0 ok (a new version, or "no changes")   1 resources still failing (nothing published)
#   2 published, but a sprite or cry host failed: files carried from the version before
#     (prune and export still run; the log's tail names the host)
#   65 bad data (lists or linked files lost upstream: nothing published)
#   69 source unavailable   74 I/O error   75 last night's run still holds the lock (skipped)
# Safe to start while the previous run is still going: pokesync's lock refuses at once.
set -u

MIRROR=${POKESYNC_MIRROR:-$(cd "$(dirname "$0")/.." && pwd)/Mirror}
POKESYNC=${POKESYNC:-pokesync}
KEEP_LOGS=${POKESYNC_KEEP_LOGS:-30}
export POKESYNC_MIRROR=$MIRROR

mkdir -p "$MIRROR/logs" || exit 74
log="$MIRROR/logs/nightly-$(date -u +%Y%m%dT%H%M%SZ)-$$.log"

stamp() { date -u +%Y-%m-%dT%H:%M:%SZ; }

# A subshell, so that its `exit` ends only the logged part and rotation still runs.
(
    echo "$(stamp) pokesync sync --mirror $MIRROR"
    "$POKESYNC" sync --mirror "$MIRROR" "$@"
    rc=$?
    case $rc in
        0|2)
            if [ $rc -eq 2 ]; then
                echo "$(stamp) WARNING: published, but a file host failed: see the warning lines above (\`pokesync status\` repeats them)"
            fi
            # The published version's diff, if there was one, for whoever reads the mail.
            newest=$(ls -t "$MIRROR/diffs/"*.txt 2>/dev/null | head -n 1)
            if [ -n "$newest" ] && [ "$newest" -nt "$log" ]; then cat "$newest"; fi
            echo "$(stamp) pokesync prune"
            "$POKESYNC" prune --mirror "$MIRROR" || rc=$?
            # `export` keeps what is already there: with the newest version's bundle and
            # deltas in place it only rewrites the index and sweeps old files.
            echo "$(stamp) pokesync export"
            # A failed export outranks the carried files' 2 (it is the worse news).
            "$POKESYNC" export --mirror "$MIRROR" || { r=$?; if [ $rc -eq 0 ] || [ $rc -eq 2 ]; then rc=$r; fi; }
            ;;
        75) echo "$(stamp) the previous run still holds the mirror's lock: skipped tonight" ;;
        *) echo "$(stamp) sync failed with exit code $rc: nothing was published; the next run resumes it" ;;
    esac
    echo "$(stamp) done, exit $rc"
    exit $rc
) >>"$log" 2>&1
rc=$?

# Rotation: keep the newest $KEEP_LOGS logs.
ls -1t "$MIRROR/logs/"nightly-*.log 2>/dev/null | tail -n +"$((KEEP_LOGS + 1))" | while read -r old; do rm -f "$old"; done
[ $rc -eq 0 ] || tail -n 20 "$log" >&2
exit $rc
