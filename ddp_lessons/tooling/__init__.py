"""The course's own tools: the ``python -m ddp_lessons`` commands and what they share.

* `cli`: ``python -m ddp_lessons COMMAND`` (each command lives in its own module);
* `course`: run every lesson headless (``make course``), store a lesson's outputs;
* `exercises`: generate exercises/ from solutions/ (``make exercises``);
* `doctor`: what this machine offers the course (``make doctor``, ``ddp-doctor``);
* `bench_live`: what a live ``%%ranks`` cell costs against a fresh torchrun launch.

Grading (``python -m ddp_lessons grade``) is its own package, `ddp_lessons.grading`. What both share (the
notebook names, the cell timeout, the exercise-cell format) is in `ddp_lessons.base`.
"""
