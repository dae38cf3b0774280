"""Spanish for every message the package shows a learner: {English template: Spanish template}.

The English template is the one written in the code, inside ``tr(...)``; keep the ``{fields}`` (and
their format specs) of the English in the Spanish. Terms follow ``i18n/es/GLOSSARY.md``: rank, world
size, backend, all-reduce, checkpoint... stay in English; code, names and values are never translated.
`tests/test_translations.py` fails when a `tr` template has no entry here, when an entry's template
is gone from the code, or when the fields differ.
"""

SPANISH = {
    # ddp_lessons.quiz: the words around every quick-check question
    "Quick check.": "Comprobación rápida.",
    "Answer": "Respuesta",
    "✓ Correct. {explanation}": "✓ Correcto. {explanation}",
    "✗ Not quite: ({letter}) is not it. {feedback} Try another option.":
        "✗ No exactamente: ({letter}) no es la respuesta. {feedback} Pruebe otra opción.",
    "✗ Not quite: ({letter}) is not it. Think again, then try another option.":
        "✗ No exactamente: ({letter}) no es la respuesta. Piénselo de nuevo y pruebe otra opción.",
    "Answer with quiz.check(letter), or click an option in JupyterLab.":
        "Responda con quiz.check(letra) o haga clic en una opción en JupyterLab.",
    'no question asked yet: run a quiz.ask("NN", k) cell first':
        'todavía no se ha hecho ninguna pregunta: ejecute antes una celda quiz.ask("NN", k)',

    # ddp_lessons.grading.feedback: the student's feedback file
    "# Feedback for {student}": "# Evaluación de {student}",
    "Total: **{total}/{possible}** points.": "Total: **{total}/{possible}** puntos.",
    "## {exercise}: {points}/{max_points} points": "## {exercise}: {points}/{max_points} puntos",
    "| | check | points |": "| | comprobación | puntos |",
    " (cell {cell})": " (celda {cell})",
    "passed": "superada",
    "failed": "no superada",
    "**{title}** — what you saw when this check ran:": "**{title}**: lo que usted vio al ejecutarse esta comprobación:",
    "**Not submitted**: no notebook with this name was handed in.":
        "**No entregado**: no se entregó ningún notebook con este nombre.",
    "**Unreadable**: the file is not a notebook the grader could open.":
        "**Ilegible**: el archivo no es un notebook que el corrector pueda abrir.",
    "**Timed out**: a cell ran past its time limit, so this exercise scores zero.":
        "**Tiempo agotado**: una celda superó su límite de tiempo, así que este ejercicio puntúa cero.",
    "**Crashed**: the notebook's kernel died (for example `os._exit` or out of memory), so this exercise "
    "scores zero.":
        "**Caída del kernel**: el kernel del notebook murió (por ejemplo, `os._exit` o falta de memoria), "
        "así que este ejercicio puntúa cero.",
    "**Did not run**: the notebook could not be started.": "**No se ejecutó**: no se pudo iniciar el notebook.",
}
