"""A real browser sees live per-rank progress bars move while a real 2-rank job runs in a cell.

JupyterLab headless, Chromium through Playwright (tests/browser.py says what it needs).
The cell runs ``launch.run_torchrun(..., progress=True)`` on a script whose ranks report with
``records.progress``; the test reads each rank's bar label from the page while the job runs.
"""
import re
import time
from pathlib import Path

import pytest

from browser import SCREENSHOTS, UI_TIMEOUT_MS, notebook_page, require_chromium, serve_lab, write_notebook
from ddp_lessons.runtime import contract

pytestmark = pytest.mark.browser

SCRIPT = Path(__file__).parent / "scripts" / "progress_steps.py"
STEPS, SECONDS_PER_STEP = 40, 0.25
STEP_TEXT = re.compile(r"step (\d+)/(\d+)")


def progress_notebook(folder: Path) -> Path:
    """A notebook whose one cell runs a 2-rank job with live progress (not run yet)."""
    source = ("from ddp_lessons import launch\n\n"
              f"run = launch.run_torchrun({str(SCRIPT)!r}, nproc=2, args=['{STEPS}', '{SECONDS_PER_STEP}'],\n"
              "                         progress=True, echo=False)\n"
              "print('job finished in', round(run.wall_seconds, 1), 's')")
    return write_notebook(folder / "progress.ipynb", [source])


@pytest.fixture
def lab(tmp_path):
    """JupyterLab over a scratch folder with the progress notebook; yields its URL."""
    require_chromium()
    notebooks = tmp_path / "lab"
    notebooks.mkdir()
    progress_notebook(notebooks)
    # the real detection: a kernel started by the server, not a forced mode
    with serve_lab(tmp_path, notebooks, drop_env=(contract.PROGRESS_MODE_ENV,)) as (base, token, _):
        yield f"{base}/lab/tree/progress.ipynb?token={token}"


def steps_shown(page) -> list[int | None]:
    """The step each rank's bar label shows now (None: no report yet)."""
    labels = page.locator(".ddp-progress .ddp-progress-label").all_inner_texts()
    return [int(m.group(1)) if (m := STEP_TEXT.search(text)) else None for text in labels]


def test_bars_move_while_a_real_two_rank_job_runs(lab):
    from playwright.sync_api import expect

    with notebook_page(require_chromium(), lab, "progress") as page:
        page.keyboard.press("Shift+Enter")
        expect(page.locator(".ddp-progress .ddp-progress-bar")).to_have_count(2, timeout=UI_TIMEOUT_MS)
        seen, deadline = [], time.monotonic() + UI_TIMEOUT_MS / 1000
        while time.monotonic() < deadline:
            steps = steps_shown(page)
            seen.append(steps[0])
            if steps == [STEPS, STEPS]:
                break
            if len([s for s in seen if s is not None]) == 6:
                page.screenshot(path=SCREENSHOTS / "progress_running.png")
            time.sleep(0.3)
        expect(page.locator(".jp-OutputArea-output", has_text="job finished in")).to_be_visible(timeout=UI_TIMEOUT_MS)
        page.screenshot(path=SCREENSHOTS / "progress_done.png")
        moving = sorted({s for s in seen if s is not None and 0 < s < STEPS})
        assert len(moving) >= 3, f"rank 0's bar as seen by the browser: {seen}"
        assert [s for s in seen if s is not None] == sorted(s for s in seen if s is not None)
        assert steps_shown(page) == [STEPS, STEPS]  # left on the page as the summary
        assert page.locator(".ddp-progress .ddp-progress-bar [class*=success]").count() == 2  # green
