"""HTTP handling of the stand-in server: routing, conditional requests, gzip, faults.

The server object carries the shared state set up by pokeapi_server.main():
data (standin_data.ApiData), base, latency, faults, stats and the sprite options.
"""

import email.utils
import hashlib
import http.server
import json
import socket
import struct
import sys
import threading
import time
import urllib.parse

import standin_data
import standin_sprites

SPRITE_PREFIX = "/PokeAPI/sprites/master/sprites/"
CRY_PREFIX = "/PokeAPI/cries/main/cries/"
JSON_TYPE = "application/json; charset=utf-8"
NOT_FOUND = b'{"detail":"Not found."}'
FAULT_BODIES = {
    "500": (500, b'{"detail":"Internal server error (injected fault)."}'),
    "503": (503, b'{"detail":"Service temporarily unavailable (injected fault)."}'),
    "429": (429, b'{"detail":"Request was throttled (injected fault)."}'),
}


class StandInServer(http.server.ThreadingHTTPServer):
    """ThreadingHTTPServer with a deep accept queue and daemon handler threads."""

    request_queue_size = 1024
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address, handler):
        super().__init__(address, handler)
        self._sprites = {}
        self._sprites_lock = threading.Lock()

    def process_request(self, request, client_address):
        """Count each accepted connection (/_stats "connections"), then serve it on its own thread."""
        stats = getattr(self, "stats", None)
        if stats is not None:
            stats.record_connection()
        super().process_request(request, client_address)

    def handle_error(self, request, client_address):
        """Stay silent when a client goes away mid-answer (cancelled requests); report the rest."""
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)

    def sprite_cache(self, sprite_path, tree="sprites"):
        """(Body, content type) of a generated sprite or cry, made once per path; None for
        other types (a cry only as .ogg, a sprite only as an image)."""
        if (tree == "cries") != sprite_path.lower().endswith(".ogg"):
            return None
        with self._sprites_lock:
            cached = self._sprites.get((tree, sprite_path))
        if cached is not None:
            return cached
        rendered = standin_sprites.render(sprite_path, self.sprite_salt, self.sprite_salt_glob)
        if rendered is None:
            return None
        entry = (standin_data.Body(rendered[0]), rendered[1])
        with self._sprites_lock:
            self._sprites[(tree, sprite_path)] = entry
        return entry


def _accepts_gzip(header):
    """True when Accept-Encoding names gzip (or *) with a non-zero quality."""
    for item in (header or "").split(","):
        name, _, params = item.strip().partition(";")
        if name.strip().lower() in ("gzip", "x-gzip", "*"):
            quality = params.strip()
            if quality.startswith("q="):
                try:
                    return float(quality[2:]) > 0
                except ValueError:
                    return False
            return True
    return False


def _chunked(payload, size=8192):
    """`payload` in HTTP/1.1 chunked transfer coding, ending with the last (empty) chunk."""
    pieces = [b"%x\r\n%s\r\n" % (len(payload[i:i + size]), payload[i:i + size]) for i in range(0, len(payload), size)]
    return b"".join(pieces) + b"0\r\n\r\n"


def _etag_matches(header, etag):
    """If-None-Match semantics: weak comparison against a list of tags, or *."""
    candidates = [tag.strip() for tag in header.split(",")]
    return any(tag == "*" or tag.removeprefix("W/") == etag for tag in candidates)


class StandInHandler(http.server.BaseHTTPRequestHandler):
    """One keep-alive connection of the stand-in."""

    protocol_version = "HTTP/1.1"
    server_version = "pokeapi-stand-in/1"
    disable_nagle_algorithm = True  # TCP_NODELAY: keep-alive stalls ~40 ms per request without it
    head_only = False
    timeout = 120  # seconds an idle keep-alive connection may hold its thread

    def log_message(self, format, *args):
        pass  # one line per request would cost more than serving it

    def do_GET(self):
        self._dispatch(head_only=False)

    def do_HEAD(self):
        self._dispatch(head_only=True)

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        path = urllib.parse.urlsplit(self.path).path
        if path == "/_stats/reset":
            self.server.stats.reset()
            self._send(200, [("Content-Type", JSON_TYPE)], b'{"reset":true}')
        elif path == "/_switch" and getattr(self.server, "switch", None) is not None:
            self.server.switch.switch(self.server)
            self._send(200, [("Content-Type", JSON_TYPE)], b'{"switched":true}')
        else:
            self._send(405, [("Content-Type", JSON_TYPE), ("Allow", "GET, HEAD")],
                       b'{"detail":"Method not allowed."}')

    # Routing

    def _dispatch(self, head_only):
        self.head_only = head_only
        parts = urllib.parse.urlsplit(self.path)
        path, query = parts.path, parts.query
        if path == "/_stats":
            snapshot = self.server.stats.snapshot()
            switch = getattr(self.server, "switch", None)
            snapshot["stalled"] = switch.stalled if switch is not None else 0
            body = json.dumps(snapshot, separators=(",", ":")).encode()
            self._send(200, [("Content-Type", JSON_TYPE), ("Cache-Control", "no-store")], body)
            return
        server = self.server
        server.stats.record_request(path)
        if server.latency > 0:
            time.sleep(server.latency)
        is_api = path == "/api/v2" or path.startswith(standin_data.API_PREFIX)
        if is_api and not path.endswith("/") and server.data.routes(path + "/"):
            location = server.base + path + "/" + ("?" + query if query else "")
            self._record(301, 0)
            self._send(301, [("Location", location), ("Content-Type", JSON_TYPE)], b"")
            return
        is_cry = path.startswith(CRY_PREFIX)
        is_sprite = path.startswith(SPRITE_PREFIX) or is_cry
        fault_tree = getattr(server, "file_host_fault_tree", "all")
        if is_sprite and getattr(server, "file_host_fault", None) and \
                fault_tree in ("all", "cries" if is_cry else "sprites") and \
                self._send_file_host_fault(server.file_host_fault, path):
            return
        is_document = is_api and len(path[len(standin_data.API_PREFIX):].strip("/").split("/")) >= 2
        switch = getattr(server, "switch", None)
        if is_document and switch is not None and not switch.admit() and not self._hold_until_switched(switch):
            return
        document_fault = getattr(server, "document_fault", None)
        if is_document and document_fault:
            self._send_document_fault(document_fault, path, query)
            return
        if is_api or is_sprite:
            fault = server.faults.draw()
            if fault is not None:
                self._send_fault(fault, path, query, is_api)
                return
        if is_api:
            self._serve_api(path, query)
        elif is_cry:
            self._serve_sprite(path[len(CRY_PREFIX):], "cries")
        elif is_sprite:
            self._serve_sprite(path[len(SPRITE_PREFIX):])
        else:
            self._respond_plain(404, NOT_FOUND, JSON_TYPE)

    def _api_headers(self):
        data = self.server.data
        proxy_hash = getattr(self.server, "proxy_deploy_hash", None)
        if not getattr(self.server, "validators", True):
            return [("X-PokeAPI-Hash", proxy_hash)] if proxy_hash else []
        return [("X-PokeAPI-Hash", proxy_hash or data.deploy_hash), ("X-PokeAPI-Deploy-Date", data.deploy_date)]

    def _serve_api(self, path, query):
        body = self.server.data.resolve(path, query)
        if body is None:
            self._respond_plain(404, NOT_FOUND, JSON_TYPE, extra=self._api_headers())
            return
        self._respond_body(body, JSON_TYPE, compressible=True)

    def _serve_sprite(self, sprite_path, tree="sprites"):
        server = self.server
        segments = sprite_path.split("/")
        rendered = None
        if ".." not in segments and "" not in segments and \
                not standin_sprites.matches(sprite_path, server.sprite_missing):
            rendered = server.sprite_cache(sprite_path, tree)
        if rendered is None:
            self._respond_plain(404, b"404: Not Found", "text/plain; charset=utf-8")
            return
        body, content_type = rendered
        self._respond_body(body, content_type, compressible=False)

    # Answers

    def _respond_body(self, body, content_type, compressible):
        """200 or 304 for a prepared Body, gzipped when the client accepts it."""
        data = self.server.data
        validators = getattr(self.server, "validators", True)
        headers = [("ETag", body.etag), ("Last-Modified", data.last_modified)] if validators else []
        headers.append(("Cache-Control", "public, max-age=86400"))
        if compressible:
            headers += [("Vary", "Accept-Encoding")] + self._api_headers()
        if validators and self._not_modified(body.etag):
            self._record(304, 0)
            self._send(304, headers, None)
            return
        payload = body.identity
        chunked = False
        if compressible and getattr(self.server, "gzip", True) and _accepts_gzip(self.headers.get("Accept-Encoding")):
            payload = body.gzipped()
            headers.append(("Content-Encoding", "gzip"))
            chunked = getattr(self.server, "chunked_gzip", False) and not self.head_only
        headers.append(("Content-Type", content_type))
        self._record(200, len(payload))
        if chunked:
            # nginx's gzip filter: the length is not known up front, so chunks and no Content-Length.
            headers.append(("Transfer-Encoding", "chunked"))
            self._send(200, headers, _chunked(payload), content_length=False)
        else:
            self._send(200, headers, payload)

    def _not_modified(self, etag):
        if_none_match = self.headers.get("If-None-Match")
        if if_none_match is not None:
            return _etag_matches(if_none_match, etag)
        if_modified_since = self.headers.get("If-Modified-Since")
        if if_modified_since:
            try:
                since = email.utils.parsedate_to_datetime(if_modified_since).timestamp()
            except (TypeError, ValueError, IndexError, OverflowError):
                return False
            return since >= self.server.data.last_modified_epoch
        return False

    def _respond_plain(self, status, body, content_type, extra=()):
        self._record(status, len(body))
        self._send(status, [("Content-Type", content_type)] + list(extra), body)

    def _record(self, status, body_bytes, fault=None):
        self.server.stats.record_response(status, body_bytes if not self.head_only else 0, fault)

    def _send(self, status, headers, body, content_length=True, close=False):
        """Write status line, headers and body in one send; body None means no body (304)."""
        if self.close_connection:
            close = True
        lines = [f"HTTP/1.1 {status} {self.responses.get(status, ('',))[0]}",
                 f"Server: {self.server_version}", f"Date: {self.date_time_string()}"]
        lines += [f"{name}: {value}" for name, value in headers]
        if body is not None and content_length:
            lines.append(f"Content-Length: {len(body)}")
        if close:
            lines.append("Connection: close")
            self.close_connection = True
        head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
        if body is None or self.head_only:
            self.wfile.write(head)
        else:
            self.wfile.write(head + body)

    # Faults

    def _send_fault(self, fault, path, query, is_api):
        """Fail this request the chosen way; a faulty response always closes the connection."""
        if fault in FAULT_BODIES:
            status, body = FAULT_BODIES[fault]
            headers = [("Content-Type", JSON_TYPE)] + (self._api_headers() if is_api else [])
            if fault == "429":
                headers.append(("Retry-After", "1"))
            self._record(status, len(body), fault)
            self._send(status, headers, body, close=True)
            return
        full = self._fault_body(path, query, is_api)
        partial = full[:max(1, len(full) // 2)]
        self._record(200, len(partial), fault)
        content_type = JSON_TYPE if is_api else "application/octet-stream"
        if fault == "truncate":
            # No Content-Length: the short body ends at the close, which a client sees as a 200.
            self._send(200, [("Content-Type", content_type)], partial, content_length=False, close=True)
            return
        # reset: promise the full length, send half, then close with SO_LINGER 0 (a TCP RST).
        lines = [f"HTTP/1.1 200 OK", f"Server: {self.server_version}",
                 f"Date: {self.date_time_string()}", f"Content-Type: {content_type}",
                 f"Content-Length: {len(full)}"]
        self.wfile.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + partial)
        self.close_connection = True
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
        except OSError:
            pass

    def _send_document_fault(self, mode, path, query):
        """A source gone bad after its lists (--document-fault): every document answered one bad way."""
        if mode == "500":
            body = FAULT_BODIES["500"][1]
            self._record(500, len(body), "document-500")
            self._send(500, [("Content-Type", JSON_TYPE)], body, close=True)
            return
        if mode == "bad-gzip":
            body = self._fault_body(path, query, True)
            self._record(200, len(body), "document-bad-gzip")
            self._send(200, [("Content-Type", JSON_TYPE), ("Content-Encoding", "gzip")], body)
            return
        # silent: the request was read; nothing is ever sent, until the client goes away.
        self.close_connection = True
        self._record(0, 0, "document-silent")
        self.connection.settimeout(0.5)
        while True:
            try:
                if self.connection.recv(1, socket.MSG_PEEK) == b"":
                    return
            except socket.timeout:
                continue
            except OSError:
                return

    def _hold_until_switched(self, switch):
        """Hold a document request, sending nothing, until POST /_switch (True: answer it now,
        from the snapshot switched to) or until the client goes away (False)."""
        self.connection.settimeout(0.2)
        try:
            while not switch.switched.is_set():
                try:
                    if self.connection.recv(1, socket.MSG_PEEK) == b"":
                        self.close_connection = True
                        return False
                    switch.switched.wait(0.2)  # a request pipelined behind this one: not a close
                except socket.timeout:
                    continue
                except OSError:
                    self.close_connection = True
                    return False
        finally:
            self.connection.settimeout(self.timeout)
        return True

    def _send_file_host_fault(self, mode, path):
        """A file host gone bad (--file-host-fault): every file answered the same wrong way, or
        (fail-70, slow) some files or none. False when the file is to be served as usual."""
        if mode == "404":
            self._respond_plain(404, b"404: Not Found", "text/plain; charset=utf-8")
            return True
        if mode == "slow":
            time.sleep(0.4)  # then the file, as usual: a slow host that delivers
            return False
        if mode == "fail-70":
            # The same 70% of the paths every time (by the path's hash), the others served.
            if int(hashlib.sha256(path.encode("utf-8")).hexdigest()[:8], 16) % 100 >= 70:
                return False
            mode = "500"
        if mode == "placeholder":
            # One valid image for every path, as a CDN's placeholder: bytes that pass every check.
            body = standin_sprites.png("placeholder")
            self._record(200, len(body), "file-host-placeholder")
            self._send(200, [("Content-Type", "image/png"), ("ETag", '"placeholder"')], body)
            return True
        if mode == "500-but-missing":
            below = path[len(CRY_PREFIX):] if path.startswith(CRY_PREFIX) else path[len(SPRITE_PREFIX):]
            if standin_sprites.matches(below, self.server.sprite_missing):
                self._respond_plain(404, b"404: Not Found", "text/plain; charset=utf-8")
                return True
            mode = "500"
        if mode == "500":
            self._record(500, 21)
            self._send(500, [("Content-Type", "text/plain")], b"500: Internal Error\n", close=True)
            return True
        if mode == "html":
            page = b"<!DOCTYPE html><html><body><h1>Temporarily unavailable</h1></body></html>\n"
            self._respond_plain(200, page, "text/html; charset=utf-8")
            return True
        extension = path[path.rfind("."):].lower()
        content_type = standin_sprites.CONTENT_TYPES.get(extension, "application/octet-stream")
        full = self._fault_body(path, "", False)
        if mode == "bad-gzip":
            # `Content-Encoding: gzip` over the file's plain bytes: a misconfigured host.
            self._record(200, len(full), "file-host-bad-gzip")
            self._send(200, [("Content-Type", content_type), ("Content-Encoding", "gzip")], full)
            return True
        self.close_connection = True
        sent = 0
        try:
            if mode == "drip":
                head = (f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\n"
                        f"Content-Length: {len(full)}\r\nConnection: close\r\n\r\n")
                self.wfile.write(head.encode("latin-1"))
                for index in range(len(full)):
                    self.wfile.write(full[index:index + 1])
                    self.wfile.flush()
                    sent += 1
                    time.sleep(1)
            else:
                head = (f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\n"
                        f"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
                self.wfile.write(head.encode("latin-1"))
                chunk = (full * (65536 // max(1, len(full)) + 1))[:65536]
                while sent < 48 << 20:
                    self.wfile.write(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
                    sent += len(chunk)
        except OSError:
            pass  # the client gave up: what a bad host sees
        self._record(200, sent, "file-host-" + mode)
        return True

    def _fault_body(self, path, query, is_api):
        """The identity body the request would have had (a placeholder when it has none)."""
        body = None
        if is_api:
            body = self.server.data.resolve(path, query)
        else:
            is_cry = path.startswith(CRY_PREFIX)
            rendered = self.server.sprite_cache(path[len(CRY_PREFIX if is_cry else SPRITE_PREFIX):],
                                                "cries" if is_cry else "sprites")
            body = rendered[0] if rendered else None
        if body is None:
            return NOT_FOUND
        return body.identity if isinstance(body, standin_data.Body) else body
