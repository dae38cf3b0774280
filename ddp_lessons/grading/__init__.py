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

Modules: `restore` (the scratch copy), `plugin` (pytest plugin: cell outcomes, dead kernels, which
limit a cell hit), `sandbox` (bwrap), `limits` (the limits and how each is enforced here), `cgroups`
(a cgroup per job), `confine` (starts a job in it), `watch` (runs a job under its limits, measures
it), `jobs` (running N notebooks at once), `scoring` (rules, `Grade`), `gradebook` (CSV files,
summary), `feedback` (per student), `report` (the class report), `command` (the CLI).
"""

from ddp_lessons.grading.command import add_arguments, run
from ddp_lessons.grading.gradebook import CSV_COLUMNS, summary_table, write_gradebook, write_wide
from ddp_lessons.grading.jobs import NOTEBOOK_TIMEOUT, grade_folder, grade_notebook
from ddp_lessons.grading.plugin import failure_line
from ddp_lessons.grading.restore import restore_checks
from ddp_lessons.grading.scoring import Grade, score

__all__ = ["add_arguments", "run", "CSV_COLUMNS", "summary_table", "write_gradebook", "write_wide",
           "NOTEBOOK_TIMEOUT", "grade_folder", "grade_notebook", "failure_line", "restore_checks",
           "Grade", "score"]
