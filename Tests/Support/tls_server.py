#!/usr/bin/env python3
"""A TLS stand-in on 127.0.0.1: HTTPS with a self-signed certificate it makes itself.

pokesync's TLS tests point it at this server. Without the certificate in the trust
store (the machine's is never changed), every handshake fails; the server counts the
TCP connections it accepts, so a test sees how many attempts a client made. Where a test
can make one process trust the certificate (a private mount namespace with the bundle
bound over the system's), the server also answers:

  --root DIR       static files under DIR (an index.json and its bundles)
  --backend URL    every GET forwarded to an http:// origin (the PokeAPI stand-in),
                   its absolute URLs rewritten to this server's https origin
  --names SAN      the certificate's names (default IP:127.0.0.1,DNS:localhost)

  python3 tls_server.py --cert-dir D --port-file P --pid-file Q --stats-file S [--root DIR | --backend URL]

The certificate (D/cert.pem, key D/key.pem) is made with `openssl req -x509` when D
has none: a self-signed certificate for --names, valid for two days.
The stats file is JSON, rewritten at every accepted connection and handshake:
{"connections": N, "handshakes": N, "handshake_failures": N, "requests": N}.
"""

import argparse
import functools
import http.client
import http.server
import json
import os
import signal
import socket
import ssl
import subprocess
import sys
import threading


def make_certificate(folder, names):
    cert, key = os.path.join(folder, "cert.pem"), os.path.join(folder, "key.pem")
    if not (os.path.exists(cert) and os.path.exists(key)):
        os.makedirs(folder, exist_ok=True)
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                        "-days", "2", "-subj", "/CN=pokesync TLS stand-in", "-addext", "subjectAltName=" + names],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return cert, key


class Stats:
    def __init__(self, path):
        self.path = path
        self.lock = threading.Lock()
        self.values = {"connections": 0, "handshakes": 0, "handshake_failures": 0, "requests": 0}
        self.add("connections", 0)

    def add(self, name, count=1):
        with self.lock:
            self.values[name] += count
            temporary = self.path + ".tmp"
            with open(temporary, "w") as handle:
                json.dump(self.values, handle)
            os.replace(temporary, self.path)


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 64

    def __init__(self, context, stats, handler):
        super().__init__(("127.0.0.1", 0), handler)
        self.context = context
        self.stats = stats

    def get_request(self):
        connection, address = self.socket.accept()
        # Counted before the client can learn anything of the handshake.
        self.stats.add("connections")
        return connection, address

    def finish_request(self, request, client_address):
        request.settimeout(10)
        try:
            wrapped = self.context.wrap_socket(request, server_side=True)
        except (ssl.SSLError, OSError):
            self.stats.add("handshake_failures")
            return
        self.stats.add("handshakes")
        try:
            self.RequestHandlerClass(wrapped, client_address, self)
        finally:
            try:
                wrapped.close()
            except OSError:
                pass


class Quiet:
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def setup(self):
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class StaticHandler(Quiet, http.server.SimpleHTTPRequestHandler):
    def do_GET(self):
        self.server.stats.add("requests")
        super().do_GET()


class ProxyHandler(Quiet, http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.server.stats.add("requests")
        backend = self.server.backend
        connection = http.client.HTTPConnection(backend.netloc.split(":")[0], int(backend.netloc.split(":")[1]), timeout=30)
        headers = {name: value for name, value in self.headers.items()
                   if name.lower() not in ("host", "accept-encoding", "connection")}
        connection.request("GET", self.path, headers=headers)
        answer = connection.getresponse()
        body = answer.read()
        # The backend writes its own http origin into documents and `next` links.
        own = ("https://127.0.0.1:%d" % self.server.server_address[1]).encode()
        body = body.replace(("http://" + backend.netloc).encode(), own)
        self.send_response(answer.status)
        for name, value in answer.getheaders():
            if name.lower() not in ("content-length", "connection", "transfer-encoding", "content-encoding"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        connection.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cert-dir", required=True)
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--pid-file", required=True)
    parser.add_argument("--stats-file", required=True)
    parser.add_argument("--root")
    parser.add_argument("--backend")
    parser.add_argument("--names", default="IP:127.0.0.1,DNS:localhost",
                        help="the certificate's subjectAltName (another name: a name-mismatch test)")
    options = parser.parse_args()
    try:
        cert, key = make_certificate(options.cert_dir, options.names)
    except (OSError, subprocess.CalledProcessError) as error:
        detail = getattr(error, "stderr", b"") or b""
        sys.exit("tls_server: cannot make a certificate with openssl: %s %s" % (error, detail.decode(errors="replace")))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    stats = Stats(options.stats_file)
    if options.backend:
        handler = ProxyHandler
    else:
        handler = functools.partial(StaticHandler, directory=options.root or options.cert_dir)
    server = Server(context, stats, handler)
    if options.backend:
        from urllib.parse import urlsplit
        server.backend = urlsplit(options.backend)
    with open(options.pid_file, "w") as handle:
        handle.write(str(os.getpid()))
    with open(options.port_file + ".tmp", "w") as handle:
        handle.write(str(server.server_address[1]))
    os.replace(options.port_file + ".tmp", options.port_file)
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
    # A child of Foundation.Process started from a Swift concurrency thread inherits a
    # mask with SIGTERM blocked: unblocked, or stop() waits for its SIGKILL.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    server.serve_forever()


if __name__ == "__main__":
    main()
