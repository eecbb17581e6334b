#!/usr/bin/env bash
# A publish hook for the nightly job (POKESYNC_PUBLISH=/usr/local/lib/pokesync/pokesync-publish-rsync.sh):
# copies the bundles folder ($1) to a static host with rsync, in the order devices need:
# new bundles and deltas first, index.json (which names them) next, and only then the
# removal of files the index no longer names (dot-files are export's bookkeeping: never copied). A device that reads the index at any moment
# finds every file it names. Set POKESYNC_RSYNC_TARGET to rsync's destination, e.g.
# www@static.example.org:/srv/www/pokedex/ (needs rsync on both machines).
set -eu
bundles=${1:?usage: pokesync-publish-rsync.sh BUNDLES_FOLDER}
target=${POKESYNC_RSYNC_TARGET:?set POKESYNC_RSYNC_TARGET, e.g. www@static.example.org:/srv/www/pokedex/}
rsync -a --exclude '.*' --exclude index.json "$bundles/" "$target"
rsync -a "$bundles/index.json" "$target"
rsync -a --exclude '.*' --delete "$bundles/" "$target"
