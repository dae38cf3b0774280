"""A real browser: JupyterLab headless, Chromium runs a `%%ranks` cell and sees both ranks' output.

Uses tests/browser.py (Chromium check, server start, quiet settings). Needs
Chromium; without it the test skips with the install hint (fails under CI). Screenshots go to
``test-output/``.
"""

import psutil
import pytest

from browser import SCREENSHOTS, UI_TIMEOUT_MS, notebook_page, serve_lab, write_notebook
from ddp_lessons.runtime import processes

pytestmark = [pytest.mark.browser, pytest.mark.slow]

START_RANKS_MS = 240_000  # a torchrun start on a busy 2-core machine
CELLS = ["%load_ext ddp_lessons.live\n%ranks start 2",
         "%%ranks\nprint(f'hello from rank {rank} of {world_size}')",
         "%ranks stop"]


@pytest.fixture
def lab(tmp_path):
    """JupyterLab over a scratch folder with the live notebook; yields (URL, server pid)."""
    notebooks = tmp_path / "lab"
    notebooks.mkdir()
    write_notebook(notebooks / "live.ipynb", CELLS)  # starts 2 ranks, runs one %%ranks cell, stops them
    with serve_lab(tmp_path, notebooks) as (base, token, pid):
        yield f"{base}/lab/tree/live.ipynb?token={token}", pid


def test_a_ranks_cell_shows_both_ranks_output_in_jupyterlab(chromium, lab):
    from playwright.sync_api import expect

    url, server_pid = lab
    with notebook_page(chromium, url, "live_ranks", timeout_ms=START_RANKS_MS) as page:
        page.keyboard.press("Shift+Enter")  # start the ranks
        outputs = page.locator(".jp-Notebook .jp-CodeCell .jp-OutputArea-output")
        expect(outputs.filter(has_text="ranks joined the process group")).to_be_visible(timeout=START_RANKS_MS)
        page.keyboard.press("Shift+Enter")  # the %%ranks cell
        cell_output = page.locator(".jp-Notebook .jp-CodeCell").nth(1).locator(".jp-OutputArea-output")
        expect(cell_output).to_contain_text("[rank 0] hello from rank 0 of 2", timeout=UI_TIMEOUT_MS)
        expect(cell_output).to_contain_text("[rank 1] hello from rank 1 of 2", timeout=UI_TIMEOUT_MS)
        text = cell_output.inner_text()
        assert text.index("[rank 0]") < text.index("[rank 1]")  # grouped in rank order
        page.screenshot(path=SCREENSHOTS / "live_ranks.png")
        ranks_pids = processes.descendants(server_pid)
        kernels = {child.pid for child in psutil.Process(server_pid).children()}
        page.keyboard.press("Shift+Enter")  # %ranks stop
        expect(outputs.filter(has_text="live ranks stopped")).to_be_visible(timeout=UI_TIMEOUT_MS)
    live_pids = ranks_pids - kernels
    assert len(live_pids) >= 4  # controller, torchrun, 2 ranks (and the controller's heart monitor)
    assert processes.alive(live_pids) == [], "%ranks stop left processes behind"
