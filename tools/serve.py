"""Serve a built site from 127.0.0.1 as a static host would: gzip and cache headers.

Usage: python tools/serve.py [SITE_DIR] [PORT]   (defaults: site, 8001)

Used by `make lighthouse`, which must measure the pages as they are delivered
in production, compressed. Only this machine can connect.

Each file is compressed once, on its first request, and kept (as static hosts
keep or precompute theirs): compressing on every request put up to a tenth of
a second of Python's work on the machine's two cores in the middle of the page
load being measured, which is the server's cost, not the page's.
"""

from __future__ import annotations

import gzip
import http.server
import sys
import threading
from functools import cache, partial
from pathlib import Path
from typing import ClassVar

COMPRESSIBLE = {
    ".html",
    ".css",
    ".js",
    ".json",
    ".svg",
    ".xml",
    ".txt",
    ".bib",
    ".ipynb",
    ".map",
    ".ttf",
}


class StaticHandler(http.server.SimpleHTTPRequestHandler):
    """Files from the site directory; gzip for text; long caching for hashed assets."""

    extensions_map: ClassVar[dict[str, str]] = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".woff2": "font/woff2",
        ".woff": "font/woff",
        ".svg": "image/svg+xml",
        ".bib": "text/plain",
        ".ipynb": "application/json",
    }

    def log_message(self, *args: object) -> None:
        pass

    def end_headers(self) -> None:
        self.send_header("X-Content-Type-Options", "nosniff")
        super().end_headers()

    def do_GET(self) -> None:
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            if not self.path.split("?", 1)[0].endswith("/"):
                return super().do_GET()  # the redirect to the slash URL
            path = path / "index.html"
        wants_gzip = "gzip" in self.headers.get("Accept-Encoding", "")
        if not path.is_file() or path.suffix not in COMPRESSIBLE or not wants_gzip:
            return super().do_GET()
        body = _compressed(path, path.stat().st_mtime_ns)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Vary", "Accept-Encoding")
        immutable = "/assets/" in self.path and path.suffix in {".css", ".js"}
        self.send_header(
            "Cache-Control",
            "public, max-age=31536000, immutable" if immutable else "public, max-age=600",
        )
        self.end_headers()
        self.wfile.write(body)


@cache
def _compressed(path: Path, mtime_ns: int) -> bytes:
    """The file at ``path`` gzipped (level 9, no timestamp), once per version of it."""
    return gzip.compress(path.read_bytes(), 9, mtime=0)


def start(site: Path, port: int = 0) -> http.server.ThreadingHTTPServer:
    """Start serving in a background thread; the caller shuts it down."""
    handler = partial(StaticHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


if __name__ == "__main__":
    site = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("site")
    server = start(site, int(sys.argv[2]) if len(sys.argv) > 2 else 8001)
    print(f"serving {site} on http://127.0.0.1:{server.server_address[1]}/ (Ctrl-C stops)")
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.shutdown()
