"""Helpers for the DDP course: launcher, backend choice, per-rank records, plots, quizzes, grading.

Import the topic you need, e.g. ``from ddp_lessons import launch, records``; each module's
docstring names the lesson that teaches it.

The layers, lowest first (a module imports only from its own layer or below; tests/test_layers.py
checks it over the import graph). Below them all, the job contract (``runtime/contract.py``: the
environment names and run-directory layout launchers and ranks share) imports nothing of the
package, and every module, a rank script included, may read it.

0. **lesson helpers**: the top-level modules lessons and their scripts compute with (`backend`,
   `records`, `sampling`, `traffic`, `timing`, `memory`, `comm_model`, `quiz`, ...), ``i18n/`` (what
   a learner reads, in the notebook's language), ``plots/`` and ``scripts/``;
1. ``runtime/``: how a job is started, watched and explained (process trees, per-rank output,
   failure attribution, hang stacks, progress, the rank hooks); never imported by a lesson;
2. **runners**, the lesson API that starts jobs: `launch`, `accelerate_launch`, `bench`;
3. ``checks/`` (exercise checks) and ``live/`` (``%%ranks``);
4. ``grading/`` and ``tooling/`` (the ``python -m ddp_lessons`` commands).

And: plots import no torch (not even through what they import) and no runner or runtime; a rank
script (``scripts/``, the live ranks' worker) imports only lesson helpers, because it runs inside a
rank; the rank hooks import nothing of the package; the runtime draws nothing.

Top-level import paths are the lesson API: a notebook, a solution or a student's submitted script
imports them, so they do not move (tests/test_lesson_api.py collects them from the notebooks).
"""

__version__ = "0.1.0"
