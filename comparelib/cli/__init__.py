"""``python -m comparelib``: one sub-command per public module in this package.

Each command module defines ``register(subparsers)``; its handler returns an exit code. A
``CompareError`` becomes one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence
from typing import NoReturn

from comparelib import __version__
from comparelib.errors import CompareError


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # argparse exits 2 too; keep it to one line
        self.exit(2, f"error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m comparelib", description="Compare speculative-decoding draft models.")
    parser.add_argument("--version", action="version", version=f"specdraft compare {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"comparelib.cli.{info.name}")
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except CompareError as exc:
        from comparelib import redact

        detail = getattr(exc, "detail", "")  # a list the pages keep in an expander (UnsupportedArchitectureError)
        said = f"{exc} ({detail})" if detail else str(exc)
        print(f"error: {' '.join(redact.mask_text(said).split())}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into `head` and closed early: not an error of ours
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so the interpreter's final flush does not raise again
        return 0
