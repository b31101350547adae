"""How a number is shown: the one place that formats a quantity for a page.

A proof states a quantity with a display rule (:class:`Show`); the build
renders it with :func:`render`, and a proof that checks "X rounds to 1.0366"
calls the same function, so what a page shows and what a proof compared are
the same characters.

Three targets:

``"text"``
    plain Unicode, for alt text, page descriptions and JSON
    (``9.3 × 10⁻²``, ``16,777,216``);
``"tex"``
    inside a formula (``9.3 \\times 10^{-2}``, ``16{,}777{,}216``);
``"markdown"``
    running Markdown prose: like ``"text"``, except that a power of ten is
    written as a formula (``$9.3 \\times 10^{-2}$``) so that it renders like
    every other formula of the site.

Rounding is decided in exact decimal arithmetic from the exact value (a
``Fraction``) or from the exact binary value of a float, never by ``%g``.
"""

from __future__ import annotations

import decimal
from dataclasses import asdict, dataclass
from fractions import Fraction
from typing import Any

__all__ = ["TARGETS", "Show", "parse_value", "render"]

TARGETS = ("text", "tex", "markdown")
STYLES = ("auto", "fixed", "sci", "fraction")
ROUNDING = {
    "nearest": decimal.ROUND_HALF_EVEN,
    "up": decimal.ROUND_UP,  # away from zero: for "at most" and "up to"
    "down": decimal.ROUND_DOWN,  # towards zero: for "at least"
}
_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


@dataclass(frozen=True)
class Show:
    """A display rule.

    Exactly one of ``sig`` (significant figures) and ``decimals`` (digits after
    the point) is given, except for ``style="fraction"`` (an exact rational as
    p/q) and for integers, which take neither. ``style`` is ``"auto"``
    (fixed for 10^-4 <= |x| < 10^6, else powers of ten), ``"fixed"`` or
    ``"sci"``. ``percent`` shows 100 x with a per cent sign; ``unit`` follows
    the number after a space.
    """

    sig: int | None = None
    decimals: int | None = None
    style: str = "auto"
    rounding: str = "nearest"
    percent: bool = False
    unit: str = ""
    group: bool = True

    def __post_init__(self) -> None:
        if self.style not in STYLES:
            raise ValueError(f"style must be one of {STYLES}, got {self.style!r}")
        if self.rounding not in ROUNDING:
            raise ValueError(f"rounding must be one of {tuple(ROUNDING)}, got {self.rounding!r}")
        if self.sig is not None and self.decimals is not None:
            raise ValueError("give sig or decimals, not both")
        if self.sig is not None and (not isinstance(self.sig, int) or self.sig < 1):
            raise ValueError(f"sig must be a positive integer, got {self.sig!r}")
        if self.decimals is not None and (not isinstance(self.decimals, int) or self.decimals < 0):
            raise ValueError(f"decimals must be a non-negative integer, got {self.decimals!r}")
        if self.style == "fraction" and (self.sig is not None or self.decimals is not None):
            raise ValueError("a fraction is shown exactly: no sig or decimals")

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v != Show.__dataclass_fields__[k].default}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Show:
        return cls(**data)


def parse_value(text: str) -> Fraction | float:
    """Inverse of how quantities are stored in JSON: 'p/q' or an integer is exact."""
    if "/" in text or text.lstrip("-").isdigit():
        return Fraction(text)
    return float(text)


def _exact(value: Any) -> Fraction:
    if isinstance(value, bool):
        raise TypeError("a quantity is a number, not a bool")
    if isinstance(value, int | Fraction):
        return Fraction(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"cannot show {value!r}")
        return Fraction(value)
    kind = type(value).__name__
    raise TypeError(f"a quantity must be an int, a Fraction or a float, got {kind}")


def _decimal(value: Fraction) -> decimal.Decimal:
    with decimal.localcontext() as ctx:
        ctx.prec = 60
        return decimal.Decimal(value.numerator) / decimal.Decimal(value.denominator)


def _round(value: Fraction, places: int, mode: str) -> decimal.Decimal:
    """value rounded to ``places`` digits after the point (negative: before it)."""
    with decimal.localcontext() as ctx:
        ctx.prec = 80
        exact = _decimal(value)
        return exact.quantize(decimal.Decimal(1).scaleb(-places), rounding=ROUNDING[mode])


def _group(digits: str, target: str) -> str:
    """'16777216' -> '16,777,216' (text) or '16{,}777{,}216' (tex)."""
    if len(digits) <= 4:  # 2048, not 2,048: four digits read fine ungrouped
        return digits
    sep = "{,}" if target == "tex" else ","
    head = len(digits) % 3 or 3
    parts = [digits[:head]] + [digits[i : i + 3] for i in range(head, len(digits), 3)]
    return sep.join(parts)


def _fixed(number: decimal.Decimal, show: Show, target: str) -> str:
    sign = "-" if number < 0 else ""
    text = format(abs(number), "f")
    whole, _, frac = text.partition(".")
    whole = _group(whole, target) if show.group else whole
    return sign + whole + ("." + frac if frac else "")


def _sci(mantissa: decimal.Decimal, exponent: int, target: str) -> str:
    one = abs(mantissa) == 1 and "." not in str(mantissa)
    sign = "-" if mantissa < 0 else ""
    if target == "tex":
        power = f"10^{{{exponent}}}"
        return sign + power if one else f"{mantissa} \\times {power}"
    power = "10" + str(exponent).translate(_SUPERSCRIPT)
    text = sign + power if one else f"{mantissa} × {power}"
    if target == "markdown":
        tex = f"10^{{{exponent}}}" if one else f"{mantissa} \\times 10^{{{exponent}}}"
        return f"${sign}{tex}$" if one else f"${tex}$"
    return text


def _significant(value: Fraction, show: Show, target: str) -> str:
    sig = show.sig if show.sig is not None else 1
    if value == 0:
        return "0"
    exponent = _decimal(abs(value)).adjusted()  # 10^e <= |x| < 10^(e+1)
    rounded = _round(value, sig - 1 - exponent, show.rounding)
    if rounded != 0 and rounded.adjusted() != exponent:  # 9.96 -> 10.0: one more digit up
        exponent = rounded.adjusted()
        rounded = _round(value, sig - 1 - exponent, show.rounding)
    sci = show.style == "sci" or (show.style == "auto" and not (-4 <= exponent < 6))
    if sci:
        mantissa = rounded.scaleb(-exponent)
        mantissa = mantissa.quantize(decimal.Decimal(1).scaleb(-(sig - 1)))
        return _sci(mantissa, exponent, target)
    if sig - 1 - exponent < 0:  # 16777216 to 3 figures: 16,800,000
        rounded = rounded.quantize(decimal.Decimal(1))
    return _fixed(rounded, show, target)


def render(value: Any, show: Show, target: str = "text") -> str:
    """The characters a page shows for ``value`` under the rule ``show``."""
    if target not in TARGETS:
        raise ValueError(f"target must be one of {TARGETS}, got {target!r}")
    exact = _exact(value)
    if show.percent:
        exact *= 100
    if show.style == "fraction":
        if isinstance(value, float):
            raise TypeError("only an exact value can be shown as a fraction")
        if exact.denominator == 1:
            body = _group(str(exact.numerator), target)
        elif target == "tex":
            body = f"\\tfrac{{{exact.numerator}}}{{{exact.denominator}}}"
        else:
            body = f"{exact.numerator}/{exact.denominator}"
    elif show.decimals is not None:
        rounded = _round(exact, show.decimals, show.rounding)
        if show.style == "sci":
            raise ValueError("decimals go with fixed notation; use sig for powers of ten")
        body = _fixed(rounded, show, target)
    elif show.sig is not None:
        body = _significant(exact, show, target)
    else:
        if exact.denominator != 1:
            raise ValueError(
                f"{value!r} is not an integer: say how to show it (sig, decimals or fraction)"
            )
        body = _fixed(decimal.Decimal(exact.numerator), show, target)
    if show.percent:
        body += "\\%" if target == "tex" else "%"
    if show.unit:
        body += f"\\ \\text{{{show.unit}}}" if target == "tex" else f" {show.unit}"
    return body
