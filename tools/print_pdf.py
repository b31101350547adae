"""Print the whole corpus (propositions/all/) to a PDF with headless Chromium.

Usage: python tools/print_pdf.py [SITE_DIR] [OUTPUT]   (defaults: site, posenc-corpus.pdf)

The page is served from a local HTTP server, every formula and figure is
checked to be rendered before printing, and nothing is fetched from elsewhere.
"""

from __future__ import annotations

import functools
import http.server
import sys
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script, too

from tools.chromium import ARGS, CHROMIUM

PAGE = "propositions/all/"

# Returns a list of problems: unrendered math, missing figures.
CHECK = """() => {
  const problems = [];
  if (document.querySelectorAll('.katex').length === 0) problems.push('no formula rendered');
  document.querySelectorAll('.katex-error')
    .forEach(e => problems.push('KaTeX error: ' + e.textContent));
  document.querySelectorAll('img').forEach(img => {
    if (!img.complete || img.naturalWidth === 0) problems.push('figure not loaded: ' + img.src);
  });
  if (!document.fonts.check('16px KaTeX_Main')) problems.push('KaTeX fonts not loaded');
  return problems;
}"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def print_pdf(site: Path, output: Path) -> int:
    """Write the PDF; return its number of bytes. Raises RuntimeError on a problem."""
    if not (site / PAGE / "index.html").is_file():
        raise RuntimeError(f"no built page {site / PAGE}: run `make site` first")
    handler = functools.partial(_Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=list(ARGS))
            page = browser.new_page()
            outside: list[str] = []

            def only_local(route):
                if route.request.url.startswith(origin) or route.request.url.startswith("data:"):
                    return route.continue_()
                outside.append(route.request.url)
                return route.abort()

            page.route("**/*", only_local)
            page.goto(origin + PAGE, wait_until="networkidle")
            page.evaluate("document.fonts.ready")
            problems = page.evaluate(CHECK) + [f"request outside the site: {u}" for u in outside]
            if problems:
                raise RuntimeError("not printing: " + "; ".join(problems[:10]))
            page.emulate_media(media="print")
            page.pdf(
                path=str(output),
                format="A4",
                print_background=True,
                margin={"top": "16mm", "bottom": "16mm", "left": "14mm", "right": "14mm"},
            )
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    return output.stat().st_size


def main(argv: list[str]) -> int:
    site = Path(argv[0]) if argv else Path("site")
    output = Path(argv[1]) if len(argv) > 1 else Path("posenc-corpus.pdf")
    try:
        size = print_pdf(site, output)
    except RuntimeError as exc:
        print(f"print_pdf: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {output} ({size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
