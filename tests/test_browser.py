"""The report as a reader sees it: opened in a real headless Chromium (Debian's package, which
.ci/run installs where missing), every plot rendered and visible, no console errors."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="no chromium on this machine (.ci/run installs Debian's package)"
)


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="the dev extra installs playwright"
    )
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        yield b
        b.close()


def view(browser, page_path: Path) -> dict:
    """Open a page from disk; return its console errors, page errors and its images' state."""
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(page_path.resolve().as_uri(), wait_until="load")
    images = page.eval_on_selector_all(
        "img",
        """els => els.map(e => {
            const r = e.getBoundingClientRect();
            return {alt: e.alt, loaded: e.complete && e.naturalWidth > 0,
                    width: r.width, height: r.height};
        })""",
    )
    headings = page.eval_on_selector_all("h1, h2", "els => els.map(e => e.textContent)")
    tables = page.eval_on_selector_all("table", "els => els.length")
    page.close()
    return {"errors": errors, "images": images, "headings": headings, "tables": tables}


@pytest.mark.slow
def test_the_report_renders_with_every_plot_visible(browser, dkd_run, tmp_path):
    from simulate.cli.analysis_commands import write_report

    copy = tmp_path / "run"
    shutil.copytree(dkd_run, copy)
    html, _ = write_report(str(copy), variants=False)
    seen = view(browser, Path(html))
    assert seen["errors"] == []
    assert len(seen["images"]) >= 6
    for img in seen["images"]:
        assert img["loaded"] and img["width"] > 200 and img["height"] > 100, img
    assert "Balance at a glance" in seen["headings"]
    assert "Strategy ratings" in seen["headings"]
    assert seen["tables"] >= 8
