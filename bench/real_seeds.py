"""MIO against DynaMOSA over several seeds of `python -m bench real --seeds N --dynamosa`.

Issue 15: the default algorithm is whichever wins on the real-code corpus at 5 s. Per module,
the median over seeds of coverage.py's branch % for each algorithm; per seed, the two ran back
to back (bench/real.py's ``plan_jobs``), so they saw the same load. Across modules: wins and
losses of the medians, their mean difference, and the Wilcoxon signed-rank test over the modules'
median pairs (bench/stats.py; exact). ``python -m bench.real_seeds <out>`` writes
``<out>/SEEDS.md``; ``python -m bench real`` appends the same section to its report.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from bench.real import DYNAMOSA, OURS, read_rows
from bench.report import table
from bench.stats import a12, signed_rank


def per_module(rows: list[dict], tool: str) -> dict[str, list[float]]:
    """Module -> branch % of each seed's run of ``tool`` (runs that produced a measurement)."""
    found: dict[str, list[float]] = {}
    for row in rows:
        if row["tool"] == tool and row.get("branch_percent", "") != "":
            found.setdefault(row["module"], []).append(float(row["branch_percent"]))
    return found


def complete_seeds(rows: list[dict]) -> list[int]:
    """Seeds for which every module that has rows has both algorithms' rows."""
    modules = {r["module"] for r in rows}
    done: dict[int, set[tuple[str, str]]] = {}
    for row in rows:
        done.setdefault(int(row.get("seed") or 0), set()).add((row["module"], row["tool"]))
    wanted = {(m, t) for m in modules for t in (OURS, DYNAMOSA)}
    return sorted(seed for seed, pairs in done.items() if wanted <= pairs)


def section(rows: list[dict]) -> str:
    """The markdown section: per-module medians, then the verdict's numbers."""
    seeds = complete_seeds(rows)
    rows = [r for r in rows if int(r.get("seed") or 0) in seeds]
    mio, dynamosa = per_module(rows, OURS), per_module(rows, DYNAMOSA)
    modules = [m for m in mio if m in dynamosa]
    if not modules:
        return ""
    lines = [
        f"## MIO against DynaMOSA over {len(seeds)} seeds (miogen at 5 s, both)",
        "",
        f"Seeds {', '.join(map(str, seeds))}; per module the median branch % over the seeds, the "
        "range, and Vargha-Delaney A12 of MIO's runs against DynaMOSA's (above 0.5: MIO higher).",
        "",
    ]
    body = []
    for module in modules:
        first, second = mio[module], dynamosa[module]
        body.append([
            f"`{module}`", f"{statistics.median(first):.1f}", _range(first),
            f"{statistics.median(second):.1f}", _range(second),
            f"{statistics.median(first) - statistics.median(second):+.1f}",
            f"{a12(first, second):.2f}",
        ])  # fmt: skip
    header = ["module", "MIO", "MIO range", "DynaMOSA", "DynaMOSA range", "MIO − DynaMOSA", "A12"]
    lines.append(table(header, body))
    lines += ["", *verdict(mio, dynamosa, modules)]
    return "\n".join(lines)


def verdict(
    mio: dict[str, list[float]], dynamosa: dict[str, list[float]], modules: list[str]
) -> list[str]:
    first = [statistics.median(mio[m]) for m in modules]
    second = [statistics.median(dynamosa[m]) for m in modules]
    ahead = sum(a > b for a, b in zip(first, second, strict=True))
    behind = sum(a < b for a, b in zip(first, second, strict=True))
    p, used = signed_rank(first, second)
    differences = [a - b for a, b in zip(first, second, strict=True)]
    return [
        f"- Medians over modules: MIO {statistics.median(first):.1f}, DynaMOSA "
        f"{statistics.median(second):.1f}; mean of the per-module differences "
        f"{statistics.mean(differences):+.2f} points (median {statistics.median(differences):+.1f})",
        f"- MIO ahead on {ahead}, behind on {behind}, equal on {len(modules) - ahead - behind} "
        f"of {len(modules)} modules",
        f"- Wilcoxon signed-rank over the {used} modules whose medians differ: p = {p:.3f}",
    ]


def _range(values: list[float]) -> str:
    return f"{min(values):.1f}–{max(values):.1f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="a bench real results folder")
    args = parser.parse_args(argv)
    text = section(read_rows(args.out / "runs.csv"))
    (args.out / "SEEDS.md").write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
