"""The reports' figures: drawn on matplotlib's ``Figure``, matplotlib imported only to draw."""

from __future__ import annotations

import subprocess
import sys

from reports import plots

EVERY_REPORT_MODULE = """
import importlib, pkgutil, sys
import reports
for m in pkgutil.walk_packages(reports.__path__, "reports."):
    importlib.import_module(m.name)
import simulate.cli
print(sorted(m for m in sys.modules if m.split(".")[0] == "matplotlib"))
"""


def test_no_report_module_imports_matplotlib_until_it_draws():
    """A command's driver assembles figures its workers drew: importing every report module
    (and the CLI) must not cost it matplotlib, nor choose a backend for a notebook."""
    out = subprocess.run(
        [sys.executable, "-c", EVERY_REPORT_MODULE], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]", out.stdout


def test_a_figure_is_drawn_without_pyplot_and_left_nowhere():
    import matplotlib.pyplot as plt

    before = plt.get_fignums()
    fig, ax = plots.subplots(1, 2, figsize=(4, 2), squeeze=False)
    assert ax.shape == (1, 2) and tuple(fig.get_size_inches()) == (4, 2)
    ax[0, 0].plot([0, 1], [1, 0])
    data = plots.png(fig)
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 1000
    assert plt.get_fignums() == before  # nothing registered with pyplot, nothing to close
