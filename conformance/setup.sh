#!/usr/bin/env bash
# Build .venv-conformance with the real libraries (see conformance/README.md).
#
#   bash conformance/setup.sh          # from the repository root
#
# It is skipped when the environment was built from the same pins (a stamp holds
# their hash), so a kept machine or a CI cache pays the 5 minutes only once.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=${POSENC_CONFORMANCE_VENV:-.venv-conformance}
python=${PYTHON:-python3.11}
stamp=$venv/.posenc-stamp
want=$(cat requirements-conformance.in conformance/no-deps.txt conformance/setup.sh | sha256sum | cut -c1-16)

if [[ -f $stamp && $(cat "$stamp") == "$want" ]]; then
    echo "conformance: $venv is up to date ($want)"
    exit 0
fi

[[ -x $venv/bin/python ]] || "$python" -m venv "$venv"
pip=("$venv/bin/python" -m pip install --quiet --disable-pip-version-check)

"${pip[@]}" -r requirements-conformance.in
grep -v '^#' conformance/no-deps.txt | xargs "${pip[@]}" --no-deps

# fairseq 0.12.2 does not import on Python 3.11: its module files are loaded from the
# sdist (conformance/conftest.py, load_fairseq_module). No wheel exists, so pip fetches
# the sdist; only two of its files are unpacked.
mkdir -p "$venv/src"
if [[ ! -f $venv/src/fairseq-0.12.2/fairseq/modules/sinusoidal_positional_embedding.py ]]; then
    "$venv/bin/python" -m pip download --quiet --no-deps fairseq==0.12.2 -d "$venv/src"
    tar -xzf "$venv/src/fairseq-0.12.2.tar.gz" -C "$venv/src" \
        fairseq-0.12.2/LICENSE \
        fairseq-0.12.2/fairseq/utils.py \
        fairseq-0.12.2/fairseq/modules/sinusoidal_positional_embedding.py
fi

echo "$want" > "$stamp"
echo "conformance: $venv built ($(du -sh "$venv" | cut -f1))"
