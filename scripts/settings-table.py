"""Writes docs/vscode.md's settings table from vscode-extension/package.json (``npm run docs:settings``).

One row per ``miogen.*`` setting of ``contributes.configuration``: its name, its default (and the
other values of an enum) and the first sentence of its description. The table goes between the
page's ``<!-- settings-table:start -->`` and ``<!-- settings-table:end -->`` markers;
``--check`` only says whether the page is current (tests/lsp/test_settings_manifest.py).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
MANIFEST = REPO / "vscode-extension" / "package.json"
PAGE = REPO / "docs" / "vscode.md"  # the page that holds the table
START, END = "<!-- settings-table:start -->", "<!-- settings-table:end -->"
PREFIX = "miogen."


def table(manifest: dict[str, Any]) -> str:
    """The Markdown table of the manifest's settings, in the manifest's order."""
    properties = manifest["contributes"]["configuration"]["properties"]
    rows = ["| Setting (`miogen.`…) | Default | What it does |", "| --- | --- | --- |"]
    for key, spec in properties.items():
        rows.append(f"| `{key.removeprefix(PREFIX)}` | {_default(spec)} | {_summary(spec)} |")
    return "\n".join(rows)


def _default(spec: dict[str, Any]) -> str:
    value = spec.get("default")
    shown = "(empty)" if value in ("", None) else f"`{json.dumps(value).strip(chr(34))}`"
    others = [v for v in spec.get("enum", []) if v != value]
    return shown + (f" ({', '.join(f'`{v}`' for v in others)})" if others else "")


def _summary(spec: dict[str, Any]) -> str:
    """The first sentence of the description, with settings links as plain names."""
    text = spec.get("markdownDescription") or spec.get("description") or ""
    text = re.sub(r"`?#(miogen\.\w+)#`?", r"`\1`", text)
    sentence = re.split(r"(?<=\.)\s+(?=[A-Z`0-9])", text.strip(), maxsplit=1)[0]
    sentence += "" if sentence.endswith(".") else "."
    if spec.get("deprecationMessage") or spec.get("markdownDeprecationMessage"):
        sentence = sentence if sentence.startswith("Deprecated") else f"Deprecated. {sentence}"
    return sentence.replace("|", "\\|").replace("\n", " ")


def with_table(readme: str, block: str) -> str:
    """``readme`` with ``block`` between the markers."""
    start, end = readme.index(START) + len(START), readme.index(END)
    return f"{readme[:start]}\n{block}\n{readme[end:]}"


def main(argv: list[str]) -> int:
    manifest = json.loads(MANIFEST.read_text(encoding="utf-8"))
    current = PAGE.read_text(encoding="utf-8")
    wanted = with_table(current, table(manifest))
    if current == wanted:
        return 0
    if "--check" in argv:
        print(f"{PAGE.name}: the settings table is out of date; run npm run docs:settings")
        return 1
    PAGE.write_text(wanted, encoding="utf-8")
    print(
        f"{PAGE.name}: settings table written ({len(manifest['contributes']['configuration']['properties'])} settings)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
