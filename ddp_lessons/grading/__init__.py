"""`python -m ddp_lessons grade SUBMISSIONS --out grades.csv`: run students' notebooks, score check cells.

Layout: ``SUBMISSIONS/<student>/<NN_topic>.ipynb``; every exercise in ``solutions/`` is graded for
every student. Each notebook runs in a scratch folder of its own (never in place), in a bubblewrap
sandbox where available: the grader clears its outputs, restores each check cell from the solution
(so editing a check or its points changes nothing) and runs it under nbval with the grader's pytest
plugin. A check cell scores its points only if it passed; a cell that times out, a kernel that dies
or a notebook past its overall limit scores zero for the exercise, and every process it started is
killed by pid, so one submission never stalls the run.

Every notebook is also bounded in memory, processes, disk and output (`limits`); one that goes over
scores zero for the exercise and its feedback names the limit and the cell.

The class is graded here (``--jobs N`` at once) or by a SLURM job array (``--slurm``): both run the
same per-notebook step and write each notebook's `Grade` to the run folder as soon as it is known;
one function (`results.merge`) makes the class's grades from them, and ``--resume`` grades only what
an interrupted run left. An instructor's hidden checks (``--hidden DIR``) run after the student's
own, in the same kernel.

Modules: `restore` (the scratch copy), `hidden` (the instructor's hidden checks), `plugin` (pytest
plugin: cell outcomes, dead kernels, which limit a cell hit), `cells` (the per-cell record it hands
on), `sandbox` (bwrap), `limits` (the limits and how each is enforced here), `cgroups` (a cgroup per
job), `confine` (starts a job in it), `watch` (runs a job under its limits, measures it), `jobs` (the
per-notebook step, N notebooks at once), `results` (each notebook's result on disk, the one merge),
`slurm` (the job array: submit, watch, re-run, cancel) and `task` (one array task), `scoring` (rules,
`Grade`), `gradebook` (CSV files, summary), `gradescope` (results.json per student), `feedback` (per
student), `report` (the class report), `command` (the CLI).
"""

from ddp_lessons.grading.command import add_arguments, run
from ddp_lessons.grading.gradebook import CSV_COLUMNS, LMS_COLUMNS, summary_table, write_gradebook, write_lms, write_wide
from ddp_lessons.grading.jobs import NOTEBOOK_TIMEOUT, Settings, grade_folder, grade_notebook, grade_notebooks
from ddp_lessons.grading.plugin import failure_line
from ddp_lessons.grading.restore import restore_checks
from ddp_lessons.grading.scoring import Grade, score

__all__ = ["add_arguments", "run", "CSV_COLUMNS", "LMS_COLUMNS", "summary_table", "write_gradebook", "write_lms",
           "write_wide", "NOTEBOOK_TIMEOUT", "Settings", "grade_folder", "grade_notebook", "grade_notebooks",
           "failure_line", "restore_checks", "Grade", "score"]
