"""Helpers for the DDP course: launcher, backend choice, per-rank records, plots, quizzes, grading.

Import the topic you need, e.g. ``from ddp_lessons import launch, records``; each module's
docstring names the lesson that teaches it.
"""

__version__ = "0.1.0"
