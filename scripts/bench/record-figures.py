#!/usr/bin/env python3
"""Writes a benchmark's latest figures into docs/benchmarks.md, the one page of measured figures.

usage: scripts/bench/record-figures.py SCRIPT "FIGURES" [--doc docs/benchmarks.md] [--history docs/benchmark-history.md]

SCRIPT names the driver (e.g. trails-render.sh); its row in the table is the one whose first cell
starts with `scripts/bench/SCRIPT`. The row's figures cell becomes FIGURES, followed by the date,
the commit measured and the load average when the run ended; the figures it replaces are appended
to the history page. A driver calls this at its end unless RECORD=0 (e.g. a trial run).
"""
import argparse, datetime, os, subprocess, sys

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("script")
    ap.add_argument("figures")
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    ap.add_argument("--doc", default=os.path.join(root, "docs", "benchmarks.md"))
    ap.add_argument("--history", default=os.path.join(root, "docs", "benchmark-history.md"))
    a = ap.parse_args()
    if os.environ.get("RECORD", "1") == "0":
        return 0
    if "|" in a.figures or "\n" in a.figures:
        sys.exit("record-figures: the figures must be one line without '|'")
    lines = open(a.doc, encoding="utf-8").read().split("\n")
    key = "| `scripts/bench/" + a.script
    rows = [i for i, l in enumerate(lines) if l.startswith(key + "`") or l.startswith(key + " ")]
    if len(rows) != 1:
        sys.exit(f"record-figures: {len(rows)} rows of {a.doc} name scripts/bench/{a.script}; expected one")
    cells = lines[rows[0]].split(" | ")
    if len(cells) != 3:
        sys.exit(f"record-figures: the row of {a.script} has {len(cells)} cells; expected script | reference | figures")
    try:
        commit = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", root, "status", "--porcelain", "--untracked-files=no", "Sources"], capture_output=True, text=True).stdout.strip()
    except OSError:
        commit, dirty = "", ""
    load = os.getloadavg()[0]
    stamp = datetime.date.today().isoformat()
    where = f"commit {commit}{' with local changes' if dirty else ''}" if commit else "no git"
    old = cells[2].rstrip(" |")
    cells[2] = f"{a.figures} ({stamp}, {where}, load average {load:.1f} at the end) |"
    lines[rows[0]] = " | ".join(cells)
    open(a.doc, "w", encoding="utf-8").write("\n".join(lines))
    with open(a.history, "a", encoding="utf-8") as h:
        h.write(f"\n- {a.script}, replaced on {stamp}: {old}\n")
    print(f"recorded in {os.path.relpath(a.doc, root)}: {a.figures}")
    return 0

if __name__ == "__main__":
    sys.exit(main())
