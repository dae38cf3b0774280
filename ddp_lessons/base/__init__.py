"""Internals below the lesson API: what lesson helpers, checks, the grader and the tools share, and no
lesson, solution or student's script imports.

* `compat`: what the package takes from Pythons newer than its floor (`StrEnum`);
* `frontend`: whether widgets show here, and an object's display with its widget;
* `scaling_results`: the bench's results document (schema, arithmetic), read by plots and `bench`;
* `conventions`: names and limits every course tool agrees on (notebook names, cell timeout);
* `exercise_format`: the exercise-cell format (solution regions, the stub, check cells) that
  `tooling.exercises` writes and the grader and `checks` read.

It sits in the lowest layer (lesson helpers): it imports nothing above it, so every layer may use it.
"""
