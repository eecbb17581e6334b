#!/usr/bin/env python3
"""A forward proxy on 127.0.0.1, for pokesync's proxy tests: what `http_proxy` and
`https_proxy` point at.

  GET http://host:port/path HTTP/1.1   forwarded to host:port; answered with
                                       Connection: close (one request a connection)
  CONNECT host:port HTTP/1.1           a tunnel: 200, then bytes both ways (TLS inside)

  python3 proxy_server.py --port-file P --pid-file Q --stats-file S [--refuse STATUS]

With --refuse 407 (or 403, or any status), every request is answered with that status
instead (407 with `Proxy-Authenticate: Basic realm="proxy"`), as a proxy that wants
credentials or does not allow the host does; it is still counted.

The stats file is JSON, rewritten before each request is forwarded:
{"connects": N, "gets": N, "targets": ["CONNECT 127.0.0.1:8443", "GET http://...", ...]}
(targets: the first 200).
"""

import argparse
import json
import os
import select
import signal
import socket
import threading
from urllib.parse import urlsplit


class Stats:
    def __init__(self, path):
        self.path = path
        self.lock = threading.Lock()
        self.values = {"connects": 0, "gets": 0, "targets": []}
        self.write()

    def add(self, method, target):
        with self.lock:
            self.values["connects" if method == "CONNECT" else "gets"] += 1
            if len(self.values["targets"]) < 200:
                self.values["targets"].append(method + " " + target)
            self.write()

    def write(self):
        temporary = self.path + ".tmp"
        with open(temporary, "w") as handle:
            json.dump(self.values, handle)
        os.replace(temporary, self.path)


def relay(client, upstream):
    """Copies bytes both ways until either side closes or 30 s pass in silence."""
    try:
        while True:
            ready, _, _ = select.select([client, upstream], [], [], 30)
            if not ready:
                return
            for side in ready:
                data = side.recv(65536)
                if not data:
                    return
                (upstream if side is client else client).sendall(data)
    except OSError:
        return
    finally:
        client.close()
        upstream.close()


def read_head(client):
    """The request head's lines, and whatever came after it (a TLS hello, say)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = client.recv(65536)
        if not chunk or len(data) > 65536:
            raise ValueError("no request head")
        data += chunk
    head, rest = data.split(b"\r\n\r\n", 1)
    return head.split(b"\r\n"), rest


def refuse(client, status):
    reason = {407: "Proxy Authentication Required", 403: "Forbidden"}.get(status, "Refused")
    extra = 'Proxy-Authenticate: Basic realm="proxy"\r\n' if status == 407 else ""
    client.sendall(("HTTP/1.1 %d %s\r\n%sContent-Length: 0\r\nConnection: close\r\n\r\n"
                    % (status, reason, extra)).encode("latin-1"))
    client.close()


def handle(client, stats, refusal=None):
    try:
        lines, rest = read_head(client)
        method, target, _ = lines[0].decode("latin-1").split(" ", 2)
        headers = lines[1:]
    except (OSError, ValueError):
        client.close()
        return
    stats.add(method, target)
    if refusal:
        refuse(client, refusal)
        return
    try:
        if method == "CONNECT":
            host, port = target.rsplit(":", 1)
            upstream = socket.create_connection((host, int(port)), timeout=10)
            client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        else:
            parts = urlsplit(target)
            upstream = socket.create_connection((parts.hostname, parts.port or 80), timeout=10)
            path = (parts.path or "/") + ("?" + parts.query if parts.query else "")
            kept = [line + b"\r\n" for line in headers
                    if not line.lower().startswith((b"proxy-", b"connection:", b"keep-alive:"))]
            upstream.sendall(("%s %s HTTP/1.1\r\n" % (method, path)).encode("latin-1") + b"".join(kept)
                             + b"Connection: close\r\n\r\n")
            answer, body = read_head(upstream)
            # One exchange a connection: the client must not send its next request here.
            kept = [line + b"\r\n" for line in answer if not line.lower().startswith((b"connection:", b"keep-alive:"))]
            client.sendall(b"".join(kept) + b"Connection: close\r\n\r\n" + body)
        upstream.settimeout(None)
        if rest:
            upstream.sendall(rest)
    except (OSError, ValueError):
        client.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        client.close()
        return
    relay(client, upstream)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--pid-file", required=True)
    parser.add_argument("--stats-file", required=True)
    parser.add_argument("--refuse", type=int, help="answer every request with this status (407, 403)")
    options = parser.parse_args()
    stats = Stats(options.stats_file)
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    with open(options.pid_file, "w") as file:
        file.write(str(os.getpid()))
    with open(options.port_file + ".tmp", "w") as file:
        file.write(str(listener.getsockname()[1]))
    os.replace(options.port_file + ".tmp", options.port_file)
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    # Started by Foundation.Process from a Swift concurrency thread, SIGTERM comes blocked.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    while True:
        client, _ = listener.accept()
        threading.Thread(target=handle, args=(client, stats, options.refuse), daemon=True).start()


if __name__ == "__main__":
    main()
