"""`python -m ddp_lessons make-error-docs [--check]`: the README's table of error messages (English and
Spanish) and docs/ERRORS.md (with docs/es/ERRORS.md), written from `runtime.signatures`, the one table
of the errors learners meet. ``--check`` writes nothing and fails when a file differs (tests run it).
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from ddp_lessons.runtime import signatures
from ddp_lessons.tooling import catalogs

ROOT = Path(__file__).resolve().parents[2]
BEGIN = ("<!-- error-signatures: written by `python -m ddp_lessons make-error-docs` from "
         "ddp_lessons/runtime/signatures.py -->")
END = "<!-- /error-signatures -->"
BLOCK = re.compile(re.escape(BEGIN) + r"\n(?:.*?\n)?" + re.escape(END), re.DOTALL)
DOC, DOC_ES = "docs/ERRORS.md", "docs/es/ERRORS.md"


def expected(root: Path) -> dict[str, str]:
    """{path relative to `root`: the text it must have}."""
    wanted = {}
    for readme, lang in (("README.md", "en"), ("README.es.md", "es")):
        text = (root / readme).read_text(encoding="utf-8")
        block = f"{BEGIN}\n{signatures.markdown_table(lang)}\n{END}"
        if BLOCK.search(text) is None:
            raise SystemExit(f"{readme}: no block between {BEGIN!r} and {END!r} to write the table into")
        wanted[readme] = BLOCK.sub(lambda _: block, text)
    wanted[DOC] = signatures.errors_doc("en")
    wanted[DOC_ES] = _marker(root, wanted[DOC]) + "\n" + signatures.errors_doc("es")
    return wanted


def _marker(root: Path, english_text: str) -> str:
    """The drift marker of docs/es/ERRORS.md for the English as it will be written."""
    return f"<!-- translates {DOC} en {catalogs.english_hash(english_text)} -->"


def stale(root: Path = ROOT) -> list[str]:
    """The files that differ from what the table writes."""
    return [path for path, text in expected(root).items()
            if not (root / path).exists() or (root / path).read_text(encoding="utf-8") != text]


def write(root: Path = ROOT) -> list[str]:
    """Write every file that differs; return their paths."""
    changed = []
    for path, text in expected(root).items():
        target = root / path
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            changed.append(path)
    return changed


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--check", action="store_true", help="write nothing; fail when a file is out of date")
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository (default: this checkout)")


def run(args: argparse.Namespace) -> int:
    if args.check:
        out = stale(args.root)
        for path in out:
            print(f"{path}: out of date with ddp_lessons/runtime/signatures.py "
                  "(run `python -m ddp_lessons make-error-docs`)")
        return 1 if out else 0
    for path in write(args.root):
        print(f"wrote {path}")
    return 0
