"""The api-data folder as the stand-in serves it: prepared bodies, lists, ETags.

Every document is read once at start, minified the way Django REST framework
writes JSON (compact separators, ensure_ascii=False, UTF-8), and every string
starting with "/api/v2/" becomes an absolute URL on the stand-in's own base.
"""

import email.utils
import gzip
import hashlib
import json
import os
import threading
import time
import urllib.parse

# The ten kinds pokesync mirrors by default (Sources.md, Kinds): the four the apps are
# built on, then the six reference kinds. A root with api/v2/index.json (the whole API)
# serves every endpoint that index names instead, meta and encounters included.
KINDS = ("pokemon", "pokemon-species", "pokedex", "evolution-chain",
         "type", "ability", "move", "stat", "version", "language")
API_PREFIX = "/api/v2/"
DEFAULT_LIMIT = 20


class NotApiData(Exception):
    """The --root folder does not hold the api-data layout."""


class Body:
    """One prepared response body with its strong ETag and a lazily gzipped copy."""

    __slots__ = ("identity", "etag", "_gzipped", "_lock")

    def __init__(self, identity):
        self.identity = identity
        self.etag = '"' + hashlib.blake2b(identity, digest_size=12).hexdigest() + '"'
        self._gzipped = None
        self._lock = threading.Lock()

    def gzipped(self):
        """The body gzipped once (mtime=0, so the bytes never change), then cached."""
        with self._lock:
            if self._gzipped is None:
                self._gzipped = gzip.compress(self.identity, compresslevel=6, mtime=0)
            return self._gzipped


def _absolutize(node, base):
    """Rewrite every string starting with /api/v2/ inside a parsed document."""
    if isinstance(node, str):
        return base + node if node.startswith(API_PREFIX) else node
    if isinstance(node, list):
        return [_absolutize(item, base) for item in node]
    if isinstance(node, dict):
        return {_absolutize(key, base): _absolutize(value, base) for key, value in node.items()}
    return node


def minify(value):
    """Compact UTF-8 JSON as Django REST framework sends it."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def prepare_document(raw, base):
    """Minify a pretty-printed document and make its /api/v2/ strings absolute."""
    parsed = json.loads(raw)
    compact = minify(parsed)
    # In compact JSON, '"/api/v2/' not preceded by a backslash is always the start
    # of a string, so a byte replace is exact unless an escaped quote precedes it.
    if b'\\"/api/v2/' in compact:
        return minify(_absolutize(parsed, base))
    return compact.replace(b'"/api/v2/', b'"' + base.encode("utf-8") + b"/api/v2/")


def _resource_id(url):
    return url.rstrip("/").rsplit("/", 1)[1]


def _parse_count(text, strict):
    """Django REST framework's _positive_int: None when absent or invalid."""
    try:
        value = int(text)
    except (TypeError, ValueError):
        return None
    if value < 0 or (strict and value == 0):
        return None
    return value


class ApiData:
    """Prepared bodies of one api-data root, addressed by request path."""

    def __init__(self, root, base, deploy_hash=None, pregzip=False):
        """Load the whole root. `base` is "http://HOST:PORT" of the stand-in.

        With `pregzip`, every document is gzipped now rather than on its first request,
        so a benchmark's first run does not measure the stand-in compressing.

        Raises NotApiData when a kind's index.json is missing or unreadable.
        """
        self.root = root
        self.base = base
        self._entries = {}
        self._names = {}
        self._documents = {}
        self._lists = {}
        self._lists_lock = threading.Lock()
        newest = 0.0
        index_digest = hashlib.sha256()
        self.kinds = KINDS
        root_index = os.path.join(root, "api", "v2", "index.json")
        if os.path.isfile(root_index):
            with open(root_index, "rb") as handle:
                self.kinds = tuple(sorted(name for name in json.load(handle) if name != "meta"))
        self.endpoints = list(self.kinds)
        for kind in self.kinds:
            index_path = os.path.join(root, "api", "v2", kind, "index.json")
            try:
                with open(index_path, "rb") as handle:
                    raw_index = handle.read()
                results = json.loads(raw_index)["results"]
                newest = max(newest, os.path.getmtime(index_path))
            except (OSError, ValueError, KeyError, TypeError) as error:
                raise NotApiData(f"{root} is not an api-data folder: cannot read "
                                 f"api/v2/{kind}/index.json ({error.__class__.__name__})")
            index_digest.update(raw_index)
            self._entries[kind] = results
            self._names[kind] = {entry["name"]: _resource_id(entry["url"])
                                 for entry in results if "name" in entry}
            newest = max(newest, self._load_kind(kind))
        meta_path = os.path.join(root, "api", "v2", "meta", "index.json")
        if os.path.isfile(meta_path):
            with open(meta_path, "rb") as handle:
                self._documents[("meta", "0")] = Body(prepare_document(handle.read(), self.base))
            self.endpoints.append("meta")
        self.deploy_hash = deploy_hash or index_digest.hexdigest()[:12]
        self.last_modified_epoch = int(newest)
        self.last_modified = email.utils.formatdate(self.last_modified_epoch, usegmt=True)
        self.deploy_date = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.last_modified_epoch))
        self.root_body = Body(minify({kind: f"{base}{API_PREFIX}{kind}/" for kind in sorted(self.endpoints)}))
        if pregzip:
            for body in self._documents.values():
                body.gzipped()

    def _load_kind(self, kind):
        """Prepare every {id}/index.json of a kind; return the newest mtime seen."""
        folder = os.path.join(self.root, "api", "v2", kind)
        newest = 0.0
        for name in os.listdir(folder):
            path = os.path.join(folder, name, "index.json")
            if not name.lstrip("-").isdigit() or not os.path.isfile(path):
                continue
            with open(path, "rb") as handle:
                raw = handle.read()
            self._documents[(kind, name)] = Body(prepare_document(raw, self.base))
            newest = max(newest, os.path.getmtime(path))
            encounters = os.path.join(folder, name, "encounters", "index.json")
            if kind == "pokemon" and os.path.isfile(encounters):
                with open(encounters, "rb") as handle:
                    self._documents[("pokemon-encounters", name)] = Body(prepare_document(handle.read(), self.base))
        return newest

    @property
    def document_count(self):
        return len(self._documents)

    def document_paths(self):
        """Every document's request path, e.g. /api/v2/pokemon/25/, kind by kind in id order."""
        keys = sorted(key for key in self._documents if key[0] in self._entries)
        return [f"{API_PREFIX}{kind}/{ident}/" for kind, ident in keys]

    def routes(self, path):
        """True when `path` (with its trailing slash) names the root, a kind's list or a document."""
        if not path.startswith(API_PREFIX):
            return False
        parts = path[len(API_PREFIX):].rstrip("/").split("/")
        if parts == ["meta"]:
            return ("meta", "0") in self._documents
        return parts == [""] or (parts[0] in self._entries and len(parts) <= 2)

    def resolve(self, path, query):
        """The Body for an /api/v2/.../ path (with its trailing slash), or None (404)."""
        if path == API_PREFIX:
            return self.root_body
        parts = path[len(API_PREFIX):].rstrip("/").split("/")
        kind = parts[0]
        if parts == ["meta"]:
            return self._documents.get(("meta", "0"))
        # PokeAPI's route: /api/v2/pokemon/{id}/encounters, slash or not, by id only.
        if kind == "pokemon" and len(parts) == 3 and parts[2] == "encounters" and parts[1].isdigit():
            return self._documents.get(("pokemon-encounters", parts[1]))
        if kind not in self._entries:
            return None
        if len(parts) == 1:
            return self._listing(kind, urllib.parse.parse_qs(query))
        if len(parts) != 2:
            return None
        key = parts[1]
        ident = key if key.lstrip("-").isdigit() else self._names[kind].get(key)
        return self._documents.get((kind, ident)) if ident is not None else None

    def _listing(self, kind, params):
        """A page of the kind's list, like Django REST framework's LimitOffsetPagination."""
        limit = _parse_count(params.get("limit", [None])[-1], strict=True) or DEFAULT_LIMIT
        offset = _parse_count(params.get("offset", [None])[-1], strict=False) or 0
        with self._lists_lock:
            cached = self._lists.get((kind, offset, limit))
        if cached is not None:
            return cached
        entries = self._entries[kind]
        page_url = f"{self.base}{API_PREFIX}{kind}/"
        next_url = f"{page_url}?offset={offset + limit}&limit={limit}" \
            if offset + limit < len(entries) else None
        previous_url = f"{page_url}?offset={max(offset - limit, 0)}&limit={limit}" \
            if offset > 0 else None
        results = []
        for entry in entries[offset:offset + limit]:
            absolute = dict(entry)
            absolute["url"] = self.base + entry["url"]
            results.append(absolute)
        body = Body(minify({"count": len(entries), "next": next_url,
                            "previous": previous_url, "results": results}))
        with self._lists_lock:
            self._lists[(kind, offset, limit)] = body
        return body
