"""Text beyond ASCII: escapes that depend on how wide a character's code point is."""


def json_escape(text: str) -> str:
    """ASCII as it is, other characters as ``\\uXXXX`` (astral ones as a surrogate pair)."""
    out = []
    for char in text:
        point = ord(char)
        if point < 0x80:
            out.append(char)
        elif point <= 0xFFFF:
            out.append(f"\\u{point:04x}")
        else:
            high, low = divmod(point - 0x10000, 0x400)
            out.append(f"\\u{0xD800 + high:04x}\\u{0xDC00 + low:04x}")
    return "".join(out)
