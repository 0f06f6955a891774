"""String conditions: prefixes, lengths, character classes, patterns, key membership."""

import re

SERIAL = re.compile(r"[A-Z]{2}\d{4}")


def classify_code(code: str) -> str:
    if code.startswith("AB-") and len(code) == 7:
        if code[3:].isdigit():
            return "ab-numeric"
        return "ab-other"
    if code.endswith(".txt"):
        return "text"
    if "@" in code and code.islower():
        return "mail"
    return "unknown"


def parse_serial(serial: str) -> int:
    if not SERIAL.fullmatch(serial):
        raise ValueError("bad serial")
    return int(serial[2:])


def postcode(text: str) -> str:
    if re.match(r"\d{5}$", text):
        return "de"
    if re.fullmatch(r"[A-Z]\d[A-Z] \d[A-Z]\d", text):
        return "ca"
    return "?"


def lookup(table: dict[str, int], key: str) -> int:
    if key in table:
        return table[key]
    if key.upper() in table:
        return -table[key.upper()]
    return 0
