"""How every tool and test here starts Debian's Chromium: headless and offline.

No sandbox (we run as root), no GPU, and none of Chromium's own calls home
(component updates, sync, field trials), so every request seen comes from the page.
"""

CHROMIUM = "/usr/bin/chromium"
ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
