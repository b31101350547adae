"""A strict little BibTeX parser for the tests (one entry at a time)."""

from __future__ import annotations

import re


def parse_bibtex(text: str) -> tuple[str, str, dict[str, str]]:
    """A strict little parser for one @type{key, field = {value}, ...} entry."""
    head = re.match(r"\s*@(\w+)\{([^,\s]+),\s*", text)
    assert head, "no @type{key, header"
    fields, at = {}, head.end()
    while True:
        m = re.compile(r"(\w+)\s*=\s*\{").match(text, at)
        if not m:
            break
        depth, i = 1, m.end()
        while depth:
            assert i < len(text), "unbalanced braces"
            depth += {"{": 1, "}": -1}.get(text[i], 0) if text[i - 1] != "\\" else 0
            i += 1
        fields[m.group(1).lower()] = text[m.end() : i - 1]
        at = re.compile(r"\s*,?\s*").match(text, i).end()
    assert text[at:].strip() == "}", f"trailing text: {text[at:]!r}"
    return head.group(1), head.group(2), fields


def unescape(value: str) -> str:
    r"""A field's text as a reader sees it: TeX's escapes (\_, \&, \%, \#, \{, \}) undone."""
    value = value.replace(r"\textbackslash{}", "\\")
    return re.sub(r"\\([_&%#{}])", r"\1", value)
