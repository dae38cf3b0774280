"""Can widgets show here? The one rule for the quizzes (`quiz`) and the live progress bars (`runtime.progress`).

* `kernel_with_widgets`: a Jupyter kernel runs this code and ipywidgets is installed, so a widget
  can be part of a cell's output (`mimebundle`: a quiz or the memory calculator adds its widget to
  its text and HTML; the page shows whichever it can);
* `live_frontend`: moreover a Jupyter server's frontend (JupyterLab, Notebook 7) watches the kernel
  now, so a widget updated from a thread is seen live. nbval and nbclient (``make course``) start
  kernels without a server session. ``DDP_LESSONS_PROGRESS=text`` or ``=widgets`` forces the answer.
"""

from __future__ import annotations

import os
from typing import Any, Callable

from ddp_lessons.runtime.contract import PROGRESS_MODE_ENV, SESSION_ENV


def kernel_with_widgets() -> bool:
    """True inside a Jupyter kernel where ipywidgets is installed."""
    try:
        from IPython import get_ipython
        import ipywidgets  # noqa: F401
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def mimebundle(text: str, html: str, widget: Callable[[], Any]) -> dict[str, Any]:
    """An object's display: `text` and `html` everywhere, and the widget `widget()` builds where a
    kernel can show it (JupyterLab shows the widget; nbval, GitHub and a terminal the rest)."""
    bundle = {"text/plain": text, "text/html": html}
    if kernel_with_widgets():
        view = widget()._repr_mimebundle_()
        bundle.update({k: v for k, v in view.items() if k != "text/plain"})
    return bundle


def live_frontend() -> bool:
    """True in a kernel started by a Jupyter server (JupyterLab, Notebook), where widgets render live."""
    mode = os.environ.get(PROGRESS_MODE_ENV, "").lower()
    if mode in ("text", "widgets"):
        return mode == "widgets"
    return kernel_with_widgets() and bool(os.environ.get(SESSION_ENV))
