"""Toys the testcase tests share."""

from __future__ import annotations

# idna's joiner rule, shrunk: a zero-width non-joiner at ``pos`` is allowed between a letter
# that joins on the left (before it, past transparent marks) and one that joins on the right
# (after it). ``VIRAMA`` adds idna's shortcut: a virama (combining class 9) just before it.
_JOINER = """
    {imports}JOINING = {{0x0628: "D", 0x0622: "R", 0x064B: "T", 0xA872: "L"}}


    def joiner_ok(label: str, pos: int) -> bool:
        if ord(label[pos]) != 0x200C:
            return False
{virama}        ok = False
        for i in range(pos - 1, -1, -1):
            kind = JOINING.get(ord(label[i]))
            if kind == "T":
                continue
            if kind in ("L", "D"):
                ok = True
                break
        if not ok:
            return False
        for i in range(pos + 1, len(label)):
            kind = JOINING.get(ord(label[i]))
            if kind == "T":
                continue
            if kind in ("R", "D"):
                return True
        return False
    """
JOINER = _JOINER.format(imports="", virama="")
JOINER_WITH_VIRAMA = _JOINER.format(
    imports="import unicodedata\n\n    ",
    virama="        if pos > 0 and unicodedata.combining(label[pos - 1]) == 9:\n            return True\n",
)
