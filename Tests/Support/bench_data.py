"""Where `make bench` gets PokeAPI's data: one place for every bench part.

The bench measures pokesync on two real snapshots of PokeAPI/api-data (the upstream's
static dump of the API, public): the "new" one (commit 9b351758822f, 2026-08-08) and the
"old" one (16d081de8ad4, 2025-12-02), each either whole (every endpoint, the encounters,
the schemas: api-data's `data/` folder) or cut to the ten default kinds (no root, no
encounters, no schemas), as the team's fixtures were cut.

A snapshot comes from, in this order:
  1. an unpacked folder named on the command line (a bench part's own --new-data,
     --old-data or --data);
  2. a PokeAPI/api-data checkout, `--api-data DIR` or $POKESYNC_API_DATA, at the commits
     --new-commit and --old-commit (`git archive COMMIT data`), or a tarball of a `data/`
     folder given as `--api-data FILE.tar.gz` (then it is the new snapshot, and the old
     one must come from elsewhere);
  3. the team's fixtures, `--fixtures DIR` (default ../shared/fixtures), when present.
Get a checkout with `git clone https://github.com/PokeAPI/api-data` (about 1 GB with its
history; `--filter=blob:none` fetches only the blobs the two commits need).

Snapshots are unpacked once into the bench's cache folder (see bench.work_folders) and
reused by later runs.
"""
import os, shutil, subprocess, tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

SNAPSHOTS = {"new": ("2026-08-08", "9b351758822f"), "old": ("2025-12-02", "16d081de8ad4")}
DEFAULT_KINDS = ("pokemon", "pokemon-species", "pokedex", "evolution-chain",
                 "type", "ability", "move", "stat", "version", "language")


def add_arguments(parser):
    """The data options every bench part takes."""
    parser.add_argument("--fixtures", default=os.path.join(ROOT, "..", "shared", "fixtures"),
                        help="the team's fixture tarballs (used when no --api-data is given)")
    parser.add_argument("--api-data", default=os.environ.get("POKESYNC_API_DATA"),
                        help="a PokeAPI/api-data checkout (or a tarball of its data/ folder); "
                             "default $POKESYNC_API_DATA")
    parser.add_argument("--new-commit", default=SNAPSHOTS["new"][1],
                        help=f"the api-data commit of the new snapshot (default {SNAPSHOTS['new'][1]})")
    parser.add_argument("--old-commit", default=SNAPSHOTS["old"][1],
                        help=f"the api-data commit of the old snapshot (default {SNAPSHOTS['old'][1]})")


def snapshot(args, cache, which="new", whole=False):
    """The unpacked api-data folder (holding `api/v2/`) of the `which` snapshot, whole or
    cut to the ten default kinds. Raises SystemExit with what to give when none is found."""
    date, _ = SNAPSHOTS[which]
    commit = args.new_commit if which == "new" else args.old_commit
    if args.api_data:
        if os.path.isdir(os.path.join(args.api_data, ".git")) or os.path.isfile(os.path.join(args.api_data, ".git")):
            folder = _from_checkout(args.api_data, commit, cache)
        elif os.path.isfile(args.api_data) and which == "new":
            folder = _from_data_tarball(args.api_data, cache)
        else:
            folder = None
        if folder:
            return folder if whole else _cut_to_default_kinds(folder, cache)
    name = f"pokeapi-all-{date}.tar.gz" if whole else f"pokeapi-{date}.tar.gz"
    archive = os.path.join(args.fixtures, name)
    if os.path.isfile(archive):
        return _extract_fixture(archive, cache)
    raise SystemExit(f"bench: no {date} snapshot of PokeAPI's data: give --api-data CHECKOUT (a clone of "
                     f"PokeAPI/api-data holding commit {commit}) or --fixtures DIR holding {name}")


def _unpacked(target, fill):
    """`target/api-data`, made once: `fill(partial)` writes `partial/api-data` in a folder
    beside it, which is renamed into place whole (an interrupted unpack is never taken)."""
    if not os.path.isdir(os.path.join(target, "api-data")):
        partial = target + ".partial"
        shutil.rmtree(partial, ignore_errors=True)
        os.makedirs(partial)
        fill(partial)
        shutil.rmtree(target, ignore_errors=True)
        os.rename(partial, target)
    return os.path.join(target, "api-data")


def _extract_fixture(archive, cache):
    def fill(partial):
        with tarfile.open(archive) as tar:
            tar.extractall(partial, filter="data")
    return _unpacked(os.path.join(cache, os.path.basename(archive).replace(".tar.gz", "")), fill)


def _from_checkout(checkout, commit, cache):
    """`git archive COMMIT data` of a checkout, unpacked as `api-data/` (the fixtures' name)."""
    full = subprocess.run(["git", "-C", checkout, "rev-parse", "--verify", f"{commit}^{{commit}}"],
                          capture_output=True, text=True)
    if full.returncode != 0:
        raise SystemExit(f"bench: {checkout} has no commit {commit} (git fetch it, or name another "
                         f"with --new-commit/--old-commit)")

    def fill(partial):
        archive = subprocess.Popen(["git", "-C", checkout, "archive", "--format=tar", full.stdout.strip(), "data"],
                                   stdout=subprocess.PIPE)
        with tarfile.open(fileobj=archive.stdout, mode="r|") as tar:
            tar.extractall(partial, filter="data")
        if archive.wait() != 0:
            raise SystemExit(f"bench: git archive of {commit} in {checkout} failed")
        os.rename(os.path.join(partial, "data"), os.path.join(partial, "api-data"))
    return _unpacked(os.path.join(cache, f"api-data-{full.stdout.strip()[:12]}"), fill)


def _from_data_tarball(path, cache):
    """A tarball of api-data's `data/` folder (its top folder named `data` or `api-data`)."""
    def fill(partial):
        with tarfile.open(path) as tar:
            tar.extractall(partial, filter="data")
        top = next((name for name in ("api-data", "data") if os.path.isdir(os.path.join(partial, name, "api"))), None)
        if top is None:
            raise SystemExit(f"bench: {path} holds no data/api/v2 (a tarball of api-data's data/ folder)")
        if top != "api-data":
            os.rename(os.path.join(partial, top), os.path.join(partial, "api-data"))
    return _unpacked(os.path.join(cache, "api-data-" + os.path.basename(path).split(".")[0]), fill)


def _cut_to_default_kinds(whole, cache):
    """The ten default kinds of a whole snapshot, hard-linked (no root, encounters or schemas),
    as the ten-kind fixtures were cut."""
    target = whole.rstrip("/") + "-ten"
    if os.path.isdir(os.path.join(target, "api", "v2")):
        return target
    partial = target + ".partial"
    shutil.rmtree(partial, ignore_errors=True)
    for kind in DEFAULT_KINDS:
        source = os.path.join(whole, "api", "v2", kind)
        if not os.path.isdir(source):
            continue
        shutil.copytree(source, os.path.join(partial, "api", "v2", kind), copy_function=os.link,
                        ignore=lambda folder, names: ["encounters"] if kind == "pokemon" else [])
    os.rename(partial, target)
    return target
