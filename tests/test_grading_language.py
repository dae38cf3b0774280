"""The grader's command line speaks the instructor's language (``grade --lang es``, ``DDP_LESSONS_LANG``, or a
Spanish shell locale): its lines, errors, limits line, SLURM progress and failures, the NOT GRADED list and
the class report; what other programs read (the CSV files, the result records) stays English, and every
notebook still runs in its own language. No kernel and no torchrun here: a class whose notebooks were not
handed in (graded without running anything), and the SLURM driver against a faked queue."""
from __future__ import annotations

import argparse
import csv
import io
import json
import os
import re
from pathlib import Path

import pytest
from grading_course import make_course

from ddp_lessons import i18n, quiz
from ddp_lessons.grading import command, jobs, report, results, scoring, slurm
from ddp_lessons.grading.limits import GiB, MiB, Limits, Plan
from ddp_lessons.grading.results import Notebook
from ddp_lessons.grading.watch import Usage
from test_translations import english_words


@pytest.mark.parametrize("chosen, environ, lang", [
    ("es", {"DDP_LESSONS_LANG": "en", "LANG": "en_US.UTF-8"}, "es"),  # --lang first
    (None, {"DDP_LESSONS_LANG": "es", "LANG": "en_US.UTF-8"}, "es"),
    (None, {"LANG": "es_MX.UTF-8"}, "es"),
    (None, {"LC_ALL": "C.UTF-8", "LANG": "es_ES.UTF-8"}, "en"),  # LC_ALL overrides LANG, as for any program
    (None, {"LC_MESSAGES": "es_AR", "LANG": "en_GB.UTF-8"}, "es"),
    (None, {"LANG": "fr_FR.UTF-8"}, "en"),  # a language the course does not speak: English
    (None, {}, "en")])
def test_the_command_picks_the_instructors_language(chosen, environ, lang):
    assert command.instructor_language(chosen, environ) == lang


def grade_args(tmp_path, *extra) -> argparse.Namespace:
    """``grade`` for a class of two students who handed in nothing (no notebook runs)."""
    make_course(tmp_path)
    for student in ("alice", "bob"):
        (tmp_path / "submissions" / student).mkdir(parents=True)
    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    return parser.parse_args([str(tmp_path / "submissions"), "--solutions", str(tmp_path / "solutions"),
                              "--out", str(tmp_path / "grades.csv"), "--sandbox", "none", "--jobs", "1", *extra])


def test_a_class_graded_with_lang_es_is_told_in_spanish_and_its_files_stay_english(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv(i18n.LANGUAGE_ENV, raising=False)
    assert command.run(grade_args(tmp_path, "--lang", "es")) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith("límites por notebook: memoria 4 GiB (") and "512 procesos+hilos (" in lines[0]
    assert lines[0].split("; aquí no hay cgroup")[0].endswith("celda 300 s, notebook 900 s"), lines[0]
    assert re.search(r"^alice/99_synthetic\.ipynb: 0/5 no entregado \(\d+,\d s\)$", out, re.M), out  # a decimal comma
    assert "bob/99_synthetic.ipynb: 0/5 no entregado (" in out
    assert [line.split() for line in lines if line.startswith(("estudiante", "alice "))] == [
        ["estudiante", "99_synthetic", "total"], ["alice", "0/5", "0/5"]], out
    assert f"registro de notas: {tmp_path / 'grades.csv'}" in lines and "informe de la clase: " in out
    said = "\n".join(lines[1:])  # after the limits line (its mechanisms name cgroup files and tools)
    assert not english_words(said), (english_words(said), out)
    markdown = (tmp_path / "grades-report.md").read_text(encoding="utf-8")
    assert markdown.startswith("# Informe de la clase\n\n2 estudiantes, 1 ejercicios.")
    assert "| ejercicio | máx. | media | mediana | mín. | máx. obtenido | no entregado | tiempo agotado |" in markdown
    assert "## Comprobaciones, las menos superadas primero" in markdown
    assert "| 99_synthetic | checks the total | 0/2 | 0 % | 2 |  |" in markdown  # the check's title, as written
    rest = markdown.replace("checks double() on one number", "").replace("checks the total", "")
    assert not english_words(rest), english_words(rest)
    with open(tmp_path / "grades.csv", newline="", encoding="utf-8") as f:  # read by other programs: English
        assert list(csv.DictReader(f))[0] == {"student": "alice", "exercise": "99_synthetic", "points": "0",
                                              "max_points": "5", "failed_checks": "not submitted"}
    assert i18n.LANGUAGE_ENV not in os.environ  # the command's language was set for the command only


def test_the_same_class_in_english_by_default_and_in_spanish_from_the_shells_locale(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv(i18n.LANGUAGE_ENV, raising=False)
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
    assert command.run(grade_args(tmp_path / "en")) == 0
    out = capsys.readouterr().out
    assert out.startswith("limits per notebook: memory 4 GiB (") and "alice/99_synthetic.ipynb: 0/5 not submitted" in out
    assert ["student", "99_synthetic", "total"] in [line.split() for line in out.splitlines()]
    assert (tmp_path / "en" / "grades-report.md").read_text().startswith("# Class report\n")
    monkeypatch.setenv("LANG", "es_ES.UTF-8")
    assert command.run(grade_args(tmp_path / "es")) == 0
    assert "alice/99_synthetic.ipynb: 0/5 no entregado" in capsys.readouterr().out


def test_a_kernel_runs_in_its_notebooks_language_while_the_command_speaks_spanish(tmp_path, monkeypatch):
    """The command's language is the instructor's; an English notebook's kernel (and its hints) stay English."""
    solution, exercise = make_course(tmp_path)
    (tmp_path / "alice").mkdir()
    import nbformat
    nbformat.write(exercise, tmp_path / "alice" / solution.name)
    seen = {}

    def run_nbval(notebook, cell_timeout, notebook_timeout, *, box=None, env=None, plan=None):
        seen.update(env)
        return jobs.NotebookRun({}, Usage(), "stopped here", scoring.DID_NOT_RUN)

    monkeypatch.setattr(jobs, "run_nbval", run_nbval)
    with command.speaking("es"):
        assert i18n.language() == "es"
        jobs.grade_notebook(tmp_path / "alice" / solution.name, solution, "alice")
    assert seen[i18n.LANGUAGE_ENV] == "en"


def test_the_limits_line_and_the_usage_of_a_notebook_in_spanish(monkeypatch):
    monkeypatch.setenv(i18n.LANGUAGE_ENV, "es")
    line = Plan(Limits(disk=1536 * MiB), sandboxed=True, cgroup="v2").line(300, 900)
    assert line == ("límites por notebook: memoria 4 GiB (cgroup v2 límite de memoria), 512 procesos+hilos (cgroup v2 "
                    "pids.max), disco 1,5 GiB (una vigilancia de su carpeta temporal, RLIMIT_FSIZE en cada archivo, "
                    "/tmp y /dev/shm como tmpfs de ese tamaño), salida 16 MiB (el corrector cuenta lo que imprimen las "
                    "celdas y los procesos), celda 300 s, notebook 900 s")
    assert Usage(812 * MiB, 31, int(2.1 * MiB), 4096).text() == (
        "máximo: 812 MiB de memoria, 31 procesos+hilos, 2,1 MiB de disco, 4 KiB de salida")
    unlimited = Plan(Limits(memory=None), sandboxed=False, cgroup=None, why_no_cgroup="sin cgroups").line(30, 60)
    assert unlimited.startswith("límites por notebook: memoria SIN LÍMITE (--memory none), ")
    assert "; aquí no hay cgroup (sin cgroups): el watchdog detiene la memoria" in unlimited
    assert not english_words(unlimited), english_words(unlimited)


def test_a_slurm_task_that_fails_twice_is_reported_in_spanish_and_stored_in_english(tmp_path, monkeypatch, capsys):
    """The progress line, the failed task and the NOT GRADED list in Spanish; the gradebook's reason in English."""
    monkeypatch.setenv(i18n.LANGUAGE_ENV, "es")
    notebook = Notebook("carol", "99_synthetic")
    settings = jobs.Settings(tmp_path / "submissions", tmp_path)
    settings.submission(notebook).parent.mkdir(parents=True)
    settings.submission(notebook).write_text("{}")
    run = tmp_path / "run"

    def submit(command, env):  # each round's task: ended by SLURM at its time limit, before grading anything
        log = next(arg for arg in command if arg.startswith("--output=")).removeprefix("--output=")
        Path(log.replace("%a", "0")).write_text(
            "slurmstepd: error: *** JOB 8 ON n1 CANCELLED AT 2026-12-03T10:00:00 DUE TO TIME LIMIT ***\n")
        return "8"

    monkeypatch.setattr(slurm, "submit", submit)
    monkeypatch.setattr(slurm.time, "sleep", lambda seconds: pytest.fail("the driver waited: the task was not failed"))
    monkeypatch.setattr(slurm, "queue_states", lambda job_id, env: {})
    progress = io.StringIO()
    ungraded = slurm.grade(settings, [notebook], run, slurm.Options(per_task=1), progress=slurm.Progress(progress))
    printed = capsys.readouterr()
    assert "enviado el trabajo de SLURM 8: 1 tarea(s) de hasta 1 notebook(s); registros en " in printed.out
    assert " (ronda 2: las tareas que fallaron, una vez más)" in printed.out
    assert "la tarea 0 de la ronda 1 superó su tiempo límite: 1 notebook(s) sin corregir" in printed.err
    assert progress.getvalue().startswith("trabajo de SLURM 8: 0 en espera, 0 en ejecución, 0 terminadas, 1 fallidas de "
                                          "1 tarea(s); 0/1 notebooks corregidos (")
    why = ungraded[notebook]
    assert why == "its SLURM task failed twice (last: ran past its time limit)"  # what the gradebook stores
    assert why.said == "su tarea de SLURM falló dos veces (la última: superó su tiempo límite)"
    grades = results.merge([notebook], {}, lambda exercise: [], ungraded)
    assert grades[0].failed_checks == ["not graded: its SLURM task failed twice (last: ran past its time limit)"]
    assert command.not_graded(grades, ungraded).splitlines() == [
        "SIN CORREGIR (1 notebooks, sin puntos; corríjalos con --resume):",
        "  carol/99_synthetic: sin corregir: su tarea de SLURM falló dos veces (la última: superó su tiempo límite)"]
    said = printed.out + printed.err + progress.getvalue() + command.not_graded(grades, ungraded)
    assert not english_words(said), english_words(said)


def test_the_class_report_in_spanish_quotes_the_checks_and_hints_as_they_are(tmp_path, monkeypatch):
    monkeypatch.setenv(i18n.LANGUAGE_ENV, "es")
    grades = [scoring.Grade("alice", "05_sampler", 2, 4, checks=[
                  scoring.CheckResult(3, "cobertura", 2, 2),
                  scoring.CheckResult(5, "fragmentos", 0, 2, "AssertionError: pista: cuente el relleno",
                                      "AssertionError: pista: cuente el relleno", hidden=True)]),
              scoring.Grade("bob", "05_sampler", 0, 4, status=scoring.TIMED_OUT)]
    first = [report.FirstAnswer("01", 1, True)]
    markdown, figure = report.write_report(grades, tmp_path / "grades-report.md", {"alice": first, "bob": first})
    text = markdown.read_text(encoding="utf-8")
    spanish = json.loads((Path(quiz.__file__).parent / quiz.QUESTIONS / "es" / "01.json").read_text())[0]["question"]
    assert f"| 01-1 | 2/2 | 100 % | {report.cell(spanish)[:report.HINT_CHARS - 1]}" in text  # the question in Spanish
    assert "| 05_sampler | 4 | 1,0 | 1 | 0 | 2 | 0 | 1 | 0 | 0 | 0 |" in text  # the mean with a decimal comma
    assert "| 05_sampler | (oculta) fragmentos | 0/1 | 0 % | 1 | pista: cuente el relleno (1×) |" in text
    assert "![distribución de las notas y porcentaje de aprobados de cada comprobación](grades-report.png)" in text
    assert not english_words(text), english_words(text)
    assert figure.read_bytes().startswith(b"\x89PNG")


def test_the_message_scan_reads_the_grader_and_catches_a_line_that_bypasses_tr():
    from test_messages import PACKAGE, learner_facing_files, untranslated

    scanned = {path.relative_to(PACKAGE).as_posix() for path in learner_facing_files()}
    assert {"grading/command.py", "grading/slurm.py", "grading/report.py", "grading/limits.py"} <= scanned
    assert untranslated('print(f"NOT GRADED ({len(ungraded)} notebooks):", file=sys.stderr)') == [1]
    assert untranslated('print(tr("NOT GRADED ({count} notebooks):", count=len(ungraded)))') == []


def test_a_bad_limit_is_refused_in_the_language_of_the_shell(monkeypatch):
    for name in ("LC_ALL", "LC_MESSAGES", i18n.LANGUAGE_ENV):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "es_ES.UTF-8")
    with pytest.raises(argparse.ArgumentTypeError, match="'lots' no es un tamaño: escriba, p. ej., 4G"):
        command.size("lots")
    with pytest.raises(argparse.ArgumentTypeError, match="'0' no es un número mayor que cero"):
        command.count("0")
    assert i18n.LANGUAGE_ENV not in os.environ and command.size("1.5G") == 1536 * MiB
