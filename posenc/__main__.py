"""``python -m posenc``: the same command line as the ``posenc`` script."""

import sys

from posenc.cli import main

if __name__ == "__main__":
    sys.exit(main())
