"""Java's number parsing, as Hadoop's ``Configuration`` getters use it: what Java accepts, and nothing more.

Python's ``int`` and ``float`` are laxer than Java (``1_000``, ``inf``, ``nan``, Unicode whitespace, digits outside
the Basic Multilingual Plane), and in one place stricter; each function here follows the JDK method it names and
returns None where Java throws ``NumberFormatException``.

One Java quirk is kept on purpose: ``Integer.parseInt`` and ``Long.parseLong`` read each digit with
``Character.digit``, which takes any Unicode decimal digit, so ``Integer.parseInt`` of full-width digits
(U+FF11 U+FF12) is 12 and Hadoop's ``getInt`` accepts it. ``Float.parseFloat``
(``FloatingDecimal.readJavaFormatString``) takes ASCII digits only, so ``getFloat`` refuses full-width digits.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

__all__ = ["INT_BITS", "LONG_BITS", "hadoop_integer", "java_float", "java_integer", "java_trim"]

INT_BITS: Final = 32
LONG_BITS: Final = 64

# String.trim(): every char <= U+0020 at either end (not Python's Unicode whitespace).
_TRIMMED: Final = "".join(chr(c) for c in range(0x21))

# FloatingDecimal.readJavaFormatString: an optional sign, then NaN, Infinity, a decimal or a hexadecimal literal (with
# its binary exponent), ASCII digits only, the decimal forms with an optional f/F/d/D type suffix.
_DECIMAL: Final = re.compile(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fFdD]?", re.ASCII)
_HEX: Final = re.compile(r"0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?[0-9]+[fFdD]?", re.ASCII)


def java_trim(text: str) -> str:
    """``String.trim()``: strips the characters <= U+0020 (Hadoop's ``getTrimmed``), not Unicode spaces."""
    return text.strip(_TRIMMED)


def _digit(char: str, radix: int) -> int:
    """``Character.digit(char, radix)``, or -1. Java strings are UTF-16: a character outside the BMP is two
    surrogates to Java, neither a digit."""
    code = ord(char)
    if code > 0xFFFF:
        return -1
    if unicodedata.category(char) == "Nd":
        value = unicodedata.decimal(char, -1)
    elif char.isascii() and char.isalpha():
        value = ord(char.lower()) - ord("a") + 10
    elif 0xFF21 <= code <= 0xFF3A or 0xFF41 <= code <= 0xFF5A:  # full-width Latin letters
        value = (code - 0xFF21 if code <= 0xFF3A else code - 0xFF41) + 10
    else:
        return -1
    return value if 0 <= value < radix else -1


def java_integer(text: str, radix: int = 10, bits: int = INT_BITS) -> int | None:
    """``Integer.parseInt(text, radix)`` (``bits=32``) or ``Long.parseLong`` (64): one optional sign, then digits
    (``Character.digit``), within range; None where Java throws NumberFormatException."""
    body = text[1:] if text[:1] in ("+", "-") else text
    if not body:
        return None
    number = 0
    for char in body:
        digit = _digit(char, radix)
        if digit < 0:
            return None
        number = number * radix + digit
    if text[:1] == "-":
        number = -number
    limit = 1 << (bits - 1)
    return number if -limit <= number < limit else None


def hadoop_integer(value: str, bits: int = INT_BITS) -> int | None:
    """``Configuration.getInt`` / ``getLong`` of a raw value: trimmed, then ``getHexDigits`` (a ``0x``/``0X`` prefix,
    after a ``-`` only, not a ``+``) and ``Integer.parseInt(hex, 16)``, else ``Integer.parseInt(value)``."""
    text = java_trim(value)
    negative = text.startswith("-")
    rest = text[1:] if negative else text
    if rest.startswith(("0x", "0X")):
        return java_integer(("-" if negative else "") + rest[2:], 16, bits)
    return java_integer(text, 10, bits)


def java_float(value: str) -> float | None:
    """``Float.parseFloat`` / ``Double.parseDouble`` of a raw value (trimmed first, as Java does), as a Python float
    (a double; callers round to float where it matters); None where Java throws NumberFormatException."""
    text = java_trim(value)
    sign = -1.0 if text.startswith("-") else 1.0
    body = text[1:] if text[:1] in ("+", "-") else text
    if body == "NaN":
        return float("nan")
    if body == "Infinity":
        return sign * float("inf")
    if _DECIMAL.fullmatch(body):
        return sign * float(body.rstrip("fFdD"))
    if _HEX.fullmatch(body):
        return sign * float.fromhex(body.rstrip("fFdD"))
    return None
