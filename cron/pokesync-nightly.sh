#!/usr/bin/env bash
# The nightly pokesync job: sync, prune to mirror.json's retention.keep, then export
# the bundles devices download (whenever the newest version has none yet, so a failed
# export is retried the next night), then the publish hook, if one is set.
# Writes a timestamped log under $POKESYNC_MIRROR/logs/ (the newest 30 kept) and
# exits with pokesync's own code, so cron mail and monitoring see failures:
#   0 ok (a new version, or "no changes")   1 resources still failing (nothing published)
#   2 published, but a sprite or cry host failed or lied: files carried from the version
#     before (prune and export still run; the log's tail names the host), or a mass change
#     of a tree's files kept back (the job never passes --allow-mass-change: run
#     `pokesync sync --allow-mass-change` once by hand for a real re-encode); or the export wrote the
#     bundle and index.json without some of it: sprites its host has not delivered yet, or
#     a delta from an old version that cannot be built (the log's WARNING line says which;
#     the publish hook still runs)
#   64 usage: mirror.json or the command line (the line names it; each night until fixed)
#   65 bad data (a kind's list shrank upstream, a corrupt store: nothing published)
#   69 source unavailable, or silent after its lists (the run stopped within minutes,
#      nothing published; the next night resumes it)
#   74 I/O error   75 another run or a backup holds the lock (skipped)
#   77 run as root on a mirror another user owns (run the job as the owner)
# A night that publishes a version prints its diff (the changed documents by name) on
# standard output, which cron mails; a night with no changes prints nothing. A version an
# earlier night published but never mailed (killed in its export, the machine stopped) is
# mailed by the next night that is not skipped, named as an earlier night's.
# Safe to start while the previous run is still going: pokesync's lock refuses at once.
#
# Environment: POKESYNC_MIRROR (the mirror folder), POKESYNC (the binary, default
# pokesync on PATH, /usr/local/bin included), POKESYNC_KEEP_LOGS (default 30),
# POKESYNC_PUBLISH (an executable run with the bundles folder after a good export, to
# copy it to a static host: cron/pokesync-publish-rsync.sh is one). The log's times are UTC.
set -u

MIRROR=${POKESYNC_MIRROR:-$(cd "$(dirname "$0")/.." && pwd)/Mirror}
# From the root, so that the log and the line to run instead name it wherever they are read.
case $MIRROR in /*) ;; *) MIRROR=$(realpath -ms -- "$MIRROR") ;; esac
# cron's PATH is /usr/bin:/bin; `make install` puts pokesync in /usr/local/bin.
export PATH="/usr/local/bin:$PATH"
POKESYNC=${POKESYNC:-pokesync}
KEEP_LOGS=${POKESYNC_KEEP_LOGS:-30}
PUBLISH=${POKESYNC_PUBLISH:-}
export POKESYNC_MIRROR=$MIRROR

# Run as root on the owner's mirror, the job would make its log folder and log root's, and
# every night after (as the owner) would fail on them: refuse first, as pokesync itself does
# (a folder not made yet is judged by the nearest one above it).
if [ "$(id -u)" -eq 0 ]; then
    folder=$MIRROR
    while [ ! -e "$folder" ] && [ "$folder" != / ] && [ "$folder" != . ]; do folder=$(dirname "$folder"); done
    owner=$(stat -c %U "$folder" 2>/dev/null || echo root)
    if [ "$owner" != root ]; then
        # The line works pasted into a new shell: the job by its absolute path, and every
        # POKESYNC* variable it was given (the mirror among them, from the root), since a
        # one-off prefix like the crontab's is not in that shell, and runuser starts no shell
        # to read one (hence env).
        line="runuser -u $owner -- env"
        for name in $(compgen -e | grep '^POKESYNC' | sort); do line="$line $(printf '%q' "$name=${!name}")"; done
        line="$line $(printf '%q' "$(cd "$(dirname "$0")" && pwd)/$(basename "$0")")"
        for word in "$@"; do line="$line $(printf '%q' "$word")"; done
        echo "the mirror $MIRROR belongs to $owner; every command that writes it runs as that user; run: $line" >&2
        exit 77
    fi
fi

mkdir -p "$MIRROR/logs" || exit 74
log="$MIRROR/logs/nightly-$(date -u +%Y%m%dT%H%M%SZ)-$$.log"
# Diff files newer than this were written tonight: the night's diff, whichever line of
# sync's output named it (a version published now, or one a stopped run left unwritten).
started="$MIRROR/logs/.night-$$"
: >"$started" || exit 74
trap 'rm -f "$started"' EXIT
tonights_diffs() { find "$MIRROR/diffs" -maxdepth 1 -name '*.txt' -newer "$started" 2>/dev/null | sort -V; }
# A night killed outright (SIGKILL, the machine stopped) ran no trap: its marker is removed
# here, once no process of that number is this job any more.
for marker in "$MIRROR/logs/".night-*; do
    pid=${marker##*/.night-}
    case $pid in ''|*[!0-9]*|"$$") continue ;; esac
    if ! tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -qF "$(basename "$0")"; then rm -f "$marker"; fi
done

stamp() { date -u +%Y-%m-%dT%H:%M:%SZ; }
began=$(date +%s)

# A subshell, so that its `exit` ends only the logged part and rotation still runs.
(
    echo "$(stamp) pokesync sync --mirror $MIRROR"
    "$POKESYNC" sync --mirror "$MIRROR" "$@"
    rc=$?
    case $rc in
        0|2)
            if [ $rc -eq 2 ]; then
                echo "$(stamp) WARNING: a file host failed or lost files: held files were carried, others wait for the next run; see the warning lines above (\`pokesync status\` repeats them)"
            fi
            # The night's diff in the log, for whoever reads it later.
            tonights_diffs | while IFS= read -r diff; do echo "$(stamp) the night's diff, $diff:"; cat "$diff"; done
            echo "$(stamp) pokesync prune"
            "$POKESYNC" prune --mirror "$MIRROR" || rc=$?
            # `export` keeps what is already there: with the newest version's bundle and
            # deltas in place it only rewrites the index and sweeps old files.
            echo "$(stamp) pokesync export"
            # A failed export outranks the carried files' 2 (it is the worse news); a failed
            # publish hook leaves the static host with what it had.
            "$POKESYNC" export --mirror "$MIRROR"
            r=$?
            if [ $r -eq 2 ]; then
                # The newest bundle and index are written: devices update; what they lack is said.
                echo "$(stamp) WARNING: exported, but not all of it: see the warning lines above (sprites wait for a later version; devices at a skipped version take the full bundle)"
                if [ $rc -eq 0 ]; then rc=2; fi
            fi
            if [ $r -eq 0 ] || [ $r -eq 2 ]; then
                if [ -n "$PUBLISH" ]; then
                    echo "$(stamp) $PUBLISH $MIRROR/bundles"
                    "$PUBLISH" "$MIRROR/bundles" || { r=$?; echo "$(stamp) the publish hook failed with exit $r: the static host keeps what it had"; if [ $rc -eq 0 ] || [ $rc -eq 2 ]; then rc=$r; fi; }
                fi
            else
                if [ $rc -eq 0 ] || [ $rc -eq 2 ]; then rc=$r; fi
            fi
            ;;
        75) echo "$(stamp) another pokesync (last night's run, a backup, a run by hand) still holds the mirror's lock: skipped tonight" ;;
        64) echo "$(stamp) sync refused its command line or mirror.json (the line above names what): nothing was published; the next night fails the same way until it is fixed" ;;
        77) echo "$(stamp) sync refused to run as root on a mirror another user owns: nothing was published; run the job as the owner" ;;
        69) echo "$(stamp) sync failed with exit code 69: the source is unreachable, or stopped answering (the line above says which); nothing was published; the next run resumes it" ;;
        *) echo "$(stamp) sync failed with exit code $rc: nothing was published; the next run resumes it" ;;
    esac
    echo "$(stamp) done, exit $rc"
    exit $rc
) >>"$log" 2>&1
rc=$?

# The mail: a night that published says what changed; a quiet night says nothing. Every
# diff not mailed yet goes in it: tonight's, and one an earlier night published but was
# killed before it mailed (a SIGKILL in its export, the machine stopped), said as such.
# logs/.mailed marks the last mail; without it (a new or restored mirror), tonight's alone.
# Skipped (75), another night may be running: its diffs are its own to mail.
mailed="$MIRROR/logs/.mailed"
if [ $rc -ne 75 ]; then
    since=$started
    [ -f "$mailed" ] && since=$mailed
    # Marked before it looks, so that a diff written meanwhile (a run by hand) waits for
    # the next mail rather than being missed by both.
    : >"$mailed.new"
    unmailed=$(find "$MIRROR/diffs" -maxdepth 1 -name '*.txt' -newer "$since" ! -newer "$mailed.new" 2>/dev/null | sort -V)
    if [ -n "$unmailed" ]; then
        tonight=$(grep -E '^(published version|changes since version)' "$log")
        [ -z "$tonight" ] || echo "$tonight"
        earlier=$(echo "$unmailed" | grep -vxF -f <(tonights_diffs))
        if [ -n "$earlier" ]; then
            [ -z "$tonight" ] || echo
            echo "not mailed before (published by an earlier night that ended before its mail: killed, or the machine stopped; or by a run by hand):"
            echo "$earlier" | while IFS= read -r diff; do
                name=${diff##*/}; to=${name%.txt}; to=${to##*-}
                night=$(grep -lE "^published version $to:" "$MIRROR/logs/"nightly-*.log 2>/dev/null | head -n 1)
                echo "version $to, published $(date -u -r "$diff" +%Y-%m-%dT%H:%M:%SZ)${night:+ (the log of that night: $night)}"
            done
        fi
        echo "$unmailed" | while IFS= read -r diff; do echo; cat "$diff"; done
        echo
        echo "log: $log"
    fi
    mv -f "$mailed.new" "$mailed"
fi

# Rotation: keep the newest $KEEP_LOGS logs.
ls -1t "$MIRROR/logs/"nightly-*.log 2>/dev/null | tail -n +"$((KEEP_LOGS + 1))" | while read -r old; do rm -f "$old"; done
# A night that did not end well says why: its warning lines (which host failed, what the
# bundle lacks), which a long diff would push out of the tail, then the log's tail.
if [ $rc -ne 0 ]; then
    grep -E '^warning: |WARNING: ' "$log" >&2
    tail -n 20 "$log" >&2
fi
# Under systemd's timer (INVOCATION_ID is set for a unit's processes), a night whose start
# found this one still running was not started at all, so no 75 says it: this run does,
# when the timer fired again after it began. Best effort: no systemctl, no line.
if [ -n "${INVOCATION_ID:-}" ] && command -v systemctl >/dev/null 2>&1; then
    fired=$(systemctl show --timestamp=unix -P LastTriggerUSec pokesync-nightly.timer 2>/dev/null | tr -d @)
    case $fired in
        ''|*[!0-9]*) ;;
        *) if [ "$fired" -gt $((began + 60)) ]; then
               echo "$(stamp) the timer fired at $(date -u -d "@$fired" +%Y-%m-%dT%H:%M:%SZ) while this night still ran: that night was skipped (systemd starts no second run); the next one catches up" >&2
           fi ;;
    esac
fi
exit $rc
