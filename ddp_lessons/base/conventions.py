"""Names and limits every course tool agrees on: which files are notebooks, how long a cell may run.

`course` (runs the lessons), `exercises` (generates exercises/) and `grading` (scores submissions)
import these, so they cannot drift apart; the Makefile's ``--nbval-cell-timeout=300`` is the same value.
"""

NOTEBOOK_PATTERN = "[0-9][0-9]_*.ipynb"
"""Lessons, solutions, exercises and submissions: ``NN_topic.ipynb``, numbered in teaching order."""

CELL_TIMEOUT = 300
"""Seconds one notebook cell may run (nbval, `make course`, the grader); above the launcher's
`launch.DEFAULT_TIMEOUT` (120 s), so a hung torchrun job fails with its own message first."""
