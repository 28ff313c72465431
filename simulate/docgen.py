"""Keep README and docs in step with the code: ``make docs`` (``python -m simulate.docgen``).

Two kinds of block, each marked by an HTML comment the Markdown renderer hides:

- a **generated section**, ``<!-- generated: NAME -->`` ... ``<!-- /generated -->``: text
  derived from the registry (:data:`SECTIONS`: the log schema, every game's bots); cheap, and a
  test fails when one is stale;
- a **figure block**, ``<!-- figure: COMMAND -->`` right above a fenced block: the fence holds
  what ``COMMAND`` (a ``dinolab`` command line with its declared sizes and seed) prints. Figures
  cost minutes, so they are rerun only by ``make docs`` (or ``--figures``), each in a fresh
  scratch folder so its ``--out`` starts empty. A test checks every figure's command still
  parses against today's CLI.

A figure quoted in prose names its command beside it; ``make docs`` cannot rewrite prose, so
prose quotes the figure blocks' numbers rather than numbers of its own where it can.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ("README.md", *sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")))

_GENERATED = re.compile(
    r"(<!-- generated: (?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- /generated -->)", re.S
)
_FIGURE = re.compile(
    r"(<!-- figure: (?P<command>.+?) -->\n(?P<fence>```\w*)\n)(?P<body>.*?)(```\n)", re.S
)


@dataclasses.dataclass(frozen=True)
class Figure:
    """A figure block: the document it is in, its line, its command and what it shows now."""

    path: str
    line: int
    command: str
    body: str

    @property
    def argv(self) -> list[str]:
        """The command's arguments after ``dinolab``."""
        words = shlex.split(self.command)
        if not words or words[0] != "dinolab":
            raise ValueError(f"{self.path}:{self.line}: a figure's command must start 'dinolab'")
        return words[1:]


def strategies_markdown() -> str:
    """Every game's registered bots with their parameters, from the registries."""
    from simulate.games import all_games

    out = []
    for g in all_games():
        out += [f"### {g.title} (`{g.name}`)", "", "| bot | what it does |", "|---|---|"]
        for info in g.registry.by_name.values():
            params = "".join(f"<br>`{p.name}` in {p.lo:g}..{p.hi:g}: {p.doc}" for p in info.params)
            out.append(f"| `{info.usage()}` | {info.doc}{params} |")
        if g.strength is not None:
            tiers = ", ".join(f"`{t}`" for t in g.strength.curve_tiers)
            out += ["", f"Strength tiers (`dinolab strength {g.name}`), weakest first: {tiers}."]
        out.append("")
    return "\n".join(out)


def schema_markdown() -> str:
    """The log schema page (``docs/schema.md``)."""
    from simulate.games import all_games
    from simulate.kit.docs import schema_markdown as markdown

    return markdown(all_games())


SECTIONS: dict[str, Callable[[], str]] = {"strategies": strategies_markdown}
"""Generated sections by name: the text between their markers."""


def refresh_sections(text: str) -> str:
    """``text`` with every generated section rewritten from :data:`SECTIONS`."""

    def body(m: re.Match) -> str:
        name = m["name"]
        if name not in SECTIONS:
            raise ValueError(f"unknown generated section {name!r}; known: {', '.join(SECTIONS)}")
        return m[1] + SECTIONS[name]().rstrip("\n") + "\n" + m[4]

    return _GENERATED.sub(body, text)


def figures(path: str, text: str) -> list[Figure]:
    """The figure blocks of one document."""
    return [
        Figure(path, text.count("\n", 0, m.start()) + 1, m["command"].strip(), m["body"])
        for m in _FIGURE.finditer(text)
    ]


def run_figure(figure: Figure) -> str:
    """What a figure's command prints today, played in a fresh scratch folder."""
    from rules.core.jit import cache_dir

    dinolab = Path(sys.executable).with_name("dinolab")
    env = {**os.environ, "DINOLAB_CACHE_DIR": str(cache_dir())}
    with tempfile.TemporaryDirectory(prefix="dinolab-docs-") as scratch:
        done = subprocess.run(
            [str(dinolab), *figure.argv], cwd=scratch, env=env, capture_output=True, text=True
        )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise RuntimeError(f"{figure.path}:{figure.line}: `{figure.command}` failed: {last}")
    return done.stdout


def refresh_figures(path: str, text: str, select: str = "") -> str:
    """``text`` with each figure block (whose command contains ``select``) rerun."""

    def body(m: re.Match) -> str:
        figure = Figure(path, text.count("\n", 0, m.start()) + 1, m["command"].strip(), m["body"])
        if select not in figure.command:
            return m[0]
        print(f"{path}:{figure.line}: {figure.command}", file=sys.stderr, flush=True)
        return m[1] + run_figure(figure).rstrip("\n") + "\n" + m[5]

    return _FIGURE.sub(body, text)


def main(argv: Sequence[str] | None = None) -> int:
    """Regenerate the schema page and generated sections; with ``--figures``, the figures."""
    ap = argparse.ArgumentParser(prog="python -m simulate.docgen", description=__doc__)
    ap.add_argument("--figures", action="store_true", help="rerun the figure blocks too")
    ap.add_argument("--only", default="", help="rerun only figures whose command has this text")
    ap.add_argument("--check", action="store_true", help="only say which files are stale")
    args = ap.parse_args(argv)
    stale = []
    pages = {"docs/schema.md": schema_markdown()} if not args.only else {}
    for path in DOCS:
        text = (ROOT / path).read_text()
        new = pages.get(path, text)
        new = refresh_sections(new) if path != "docs/schema.md" else new
        if args.figures or args.only:
            new = refresh_figures(path, new, args.only)
        if new != text:
            stale.append(path)
            if not args.check:
                (ROOT / path).write_text(new)
    verb = "stale" if args.check else "rewritten"
    print(f"{verb}: {', '.join(stale)}" if stale else "docs up to date", file=sys.stderr)
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
