#!/usr/bin/env python3
"""Writes a fuzz target's seed corpus from the tests' fixtures.

    fuzz-seeds.py TARGET OUT_DIR

fx_text: every FX dump the FX reader tests hold as C++ string literals (raw
R"X(...)X" strings and runs of adjacent "..." literals, the broken forms of the
error tests included), the hand-written seeds in fuzz/seeds/fx, and the PT2
captures the pt2 tests wrote under build/pt2-fixtures when they are there.
Each seed is one file named by its content's hash, so reruns add nothing twice.
"""
import hashlib
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
RAW = re.compile(r'R"([A-Za-z]*)\((.*?)\)\1"', re.S)
PLAIN_RUN = re.compile(r'(?:"(?:[^"\\\n]|\\.)*"\s*)+')
PLAIN = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "'": "'", "0": "\0"}


def unescape(body):
    return re.sub(r"\\(.)", lambda m: ESCAPES.get(m.group(1), m.group(1)), body)


def literals(source):
    yield from (m.group(2) for m in RAW.finditer(source))
    for run in PLAIN_RUN.finditer(RAW.sub("", source)):
        yield "".join(unescape(m.group(1)) for m in PLAIN.finditer(run.group(0)))


def looks_like_fx(text):
    return "def forward" in text or "graph():" in text


def fx_seeds():
    tests = ROOT / "tests" / "core"
    for path in sorted(tests.glob("io_fx_*.cpp")) + sorted(tests.glob("Fx*Fixtures.h")):
        yield from (t for t in literals(path.read_text()) if looks_like_fx(t))
    for directory in (ROOT / "fuzz" / "seeds" / "fx", ROOT / "build" / "pt2-fixtures"):
        if directory.is_dir():
            yield from (p.read_text(errors="replace") for p in sorted(directory.rglob("*.py")))


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("fx_text",):
        sys.exit(__doc__.strip())
    out = pathlib.Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    count = 0
    for text in fx_seeds():
        data = text.encode()
        (out / hashlib.sha1(data).hexdigest()[:16]).write_bytes(data)
        count += 1
    print(f"{count} seeds in {out}")


if __name__ == "__main__":
    main()
