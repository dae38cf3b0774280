"""What the browser tests share: JupyterLab started on a scratch folder (`serve_lab`), a notebook
written for it (`write_notebook`), and Chromium on that notebook with its kernel idle (`notebook_page`).

Needs Chromium (Debian: ``sudo apt-get install chromium``) and the playwright Python package (a
course dependency). Without them a browser test skips with that hint (`require_chromium`, the
``chromium`` fixture in conftest.py), except under CI (env ``CI`` set), where it fails.
Screenshots go to ``test-output/``.
"""
import contextlib
import importlib.util
import os
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import nbformat
import nbformat.v4 as v4
import pytest

from ddp_lessons.launch import free_port
from ddp_lessons.runtime import processes

ROOT = Path(__file__).resolve().parents[1]
SCREENSHOTS = ROOT / "test-output"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SERVER_START_S = 120
UI_TIMEOUT_MS = 120_000


def require_chromium() -> str:
    """Chromium's path, once it and Playwright are known to be installed; fail under CI, else skip."""
    missing = []
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        missing.append("Chromium: install it with `sudo apt-get install chromium` "
                       "(Debian/Ubuntu; `chromium-browser` or your distribution's package elsewhere)")
    if importlib.util.find_spec("playwright") is None:
        missing.append("the playwright Python package: `.venv/bin/pip install -e .`")
    if missing:
        message = "the browser test needs " + " and ".join(missing)
        if os.environ.get("CI", "").lower() not in ("", "0", "false"):
            pytest.fail(message)
        pytest.skip(message)
    return chromium


def write_notebook(path: Path, cells: list[str]) -> Path:
    """A Python 3 notebook at `path` with these code cells (not run yet)."""
    notebook = v4.new_notebook(cells=[v4.new_code_cell(source) for source in cells],
                               metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                        "language": "python"}})
    nbformat.write(notebook, path)
    return path


@contextlib.contextmanager
def notebook_page(chromium: str, url: str, name: str, timeout_ms: int = UI_TIMEOUT_MS):
    """Chromium on the notebook at `url`, its kernel idle and its first cell selected; yields the page.

    Any failure inside leaves ``test-output/{name}_failure.png``, what the browser showed.
    """
    from playwright.sync_api import expect, sync_playwright

    SCREENSHOTS.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS, headless=True)
        page = browser.new_page(viewport={"width": 1200, "height": 800})
        try:
            page.set_default_timeout(timeout_ms)
            page.goto(url)
            # A cell run before the kernel is connected is silently dropped: wait for it first.
            expect(page.locator(".jp-StatusBar-Widget", has_text="| Idle")).to_be_visible(timeout=UI_TIMEOUT_MS)
            page.locator(".jp-Notebook .jp-CodeCell .cm-content").first.click()
            yield page
        except Exception:
            page.screenshot(path=SCREENSHOTS / f"{name}_failure.png")
            raise
        finally:
            browser.close()


def wait_until_serving(url: str, server: subprocess.Popen, log: Path) -> None:
    """Poll the server's status API until it answers; fail with its log if it exits or never does."""
    deadline = time.monotonic() + SERVER_START_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"JupyterLab exited with {server.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except (urllib.error.URLError, OSError):
            time.sleep(0.5)
    pytest.fail(f"JupyterLab did not answer within {SERVER_START_S} s:\n{log.read_text()[-3000:]}")


def quiet_settings(folder: Path) -> Path:
    """A JupyterLab user-settings folder that turns off the news pop-up (it would cover the page)."""
    settings = folder / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"fetchNews": "false"}')
    return folder


@contextlib.contextmanager
def serve_lab(tmp_path: Path, notebooks: Path, drop_env: tuple[str, ...] = (), extra_env: dict[str, str] | None = None):
    """JupyterLab on 127.0.0.1 over `notebooks` with a fresh Jupyter home (no user settings,
    workspaces or runtime files shared), without `drop_env` and with `extra_env` in its environment (and
    its kernels'); yields (base URL, token, server pid); kills its tree after."""
    home = tmp_path / "jupyter-home"
    port, token = free_port(), uuid.uuid4().hex
    env = {**os.environ,
           "JUPYTER_CONFIG_DIR": str(home / "config"), "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
           "JUPYTERLAB_SETTINGS_DIR": str(quiet_settings(home / "settings")),
           "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"), "IPYTHONDIR": str(home / "ipython")}
    for name in drop_env:
        env.pop(name, None)
    env.update(extra_env or {})
    command = [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root",
               "--ip=127.0.0.1", f"--port={port}", "--port-retries=0", f"--IdentityProvider.token={token}",
               f"--ServerApp.root_dir={notebooks}", "--LabApp.news_url=None",
               "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
    log = tmp_path / "jupyterlab.log"
    with open(log, "wb") as out:
        server = subprocess.Popen(command, cwd=tmp_path, env=env, stdin=subprocess.DEVNULL, stdout=out,
                                  stderr=subprocess.STDOUT)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_until_serving(f"{base}/api/status?token={token}", server, log)
        yield base, token, server.pid
    finally:
        processes.Tree().kill([server.pid])  # the server, its kernels and anything they started
        server.wait()
