"""What a translation may change in a code cell (ddp_lessons.tooling.code_strings): comments and the
strings the code shows, never a name, a number, a key, a file name or an f-string's fields."""
import pytest

from ddp_lessons.tooling import code_strings as cs

SCRIPT = '''%%writefile scripts/x.py
"""Train one step and say so."""
import os  # the os module


def step(rows):
    """One step."""
    print(f"rank {rows['rank']}: loss {rows['loss']:.3f}")  # shown
    assert rows["rank"] >= 0, "a rank is never negative"
    if rows["status"] == "passed":
        raise SystemExit("rank " + str(rows["rank"]) + " stopped")
    plot(rows, title="Loss per rank", reference_label="one process", mode="fast")
    open("scripts/out.txt").write(", ".join(["a", "b"]))
    return {"rank": 0, "shown only": 1}
# NBVAL_CHECK_OUTPUT
#SBATCH --nodes 2
'''


def roles(source, context=None):
    return {literal.token.text: literal.role for literal in cs.literals(source, context)}


def test_the_rule_picks_comments_docstrings_and_shown_strings_and_leaves_data_alone():
    found = roles(SCRIPT)
    assert found['"""Train one step and say so."""'] == found['"""One step."""'] == cs.DOCSTRING
    assert found["# the os module"] == found["# shown"] == cs.COMMENT
    shown = ['f"rank {rows[\'rank\']}: loss {rows[\'loss\']:.3f}"', '"a rank is never negative"', '"rank "',
             '" stopped"', '"Loss per rank"', '"one process"']
    assert [found[text] for text in shown] == [cs.SHOWN] * len(shown)
    assert found['"rank"'] == found['"status"'] == found['"passed"'] == cs.DATA  # a key read, compared
    assert found['"fast"'] == found['"scripts/out.txt"'] == cs.DATA  # an option, a file name
    assert found['"shown only"'] == cs.OTHER  # a dict key nothing reads: a pair may translate it by hand
    assert found["# NBVAL_CHECK_OUTPUT"] == found["#SBATCH --nodes 2"] == cs.DIRECTIVE
    assert found['", "'] == found['"a"'] == cs.NO_WORDS
    assert cs.units(SCRIPT)[:3] == ['"""Train one step and say so."""', "# the os module", '"""One step."""']


def test_a_shown_string_the_notebook_reads_back_stays_english():
    printer = 'print(f"{fix}: step {step} done")\nprint("rank", 0)'
    reader = 'assert lines_with(result, "step ")\nif "rank" in row:\n    pass'
    context = cs.Context.of([("a", printer), ("b", reader)])
    found = {literal.token.text: literal for literal in cs.literals(printer, context)}
    assert found['f"{fix}: step {step} done"'].role == cs.READ_BACK
    assert "cell b looks for 'step '" in found['f"{fix}: step {step} done"'].where
    assert found['"rank"'].role == cs.SHOWN  # a bare word tested with `in` is a key, not a text


def test_magics_stay_and_what_follows_them_is_python_shell_or_text():
    live = '%%ranks\n# NBVAL_CHECK_OUTPUT\nx = %ranks_gather model.weight\nprint("weight:", x)\n%ranks stop'
    assert roles(live) == {"# NBVAL_CHECK_OUTPUT": cs.DIRECTIVE, '"weight:"': cs.SHOWN}
    assert cs.split(live).magic_rows == {1, 3, 5}
    shell = ('%%writefile scripts/job.sbatch\n#!/bin/bash\n# one agent per node\n#SBATCH --nodes=1\n'
             'PY=${PY:-python3}   # the interpreter\necho "job # $ID"')
    assert roles(shell) == {"#!/bin/bash": cs.DIRECTIVE, "# one agent per node": cs.COMMENT,
                            "#SBATCH --nodes=1": cs.DIRECTIVE, "# the interpreter": cs.COMMENT}
    assert cs.literals('%%writefile scripts/data.json\n{"a": "some words"}') == []
    stub = "def f():\n    # YOUR CODE HERE\n    raise NotImplementedError()"
    assert roles(stub) == {"# YOUR CODE HERE": cs.DIRECTIVE}  # the grader looks for the stub


def test_translate_writes_the_spanish_into_its_tokens_and_nothing_else():
    spanish = cs.translate(SCRIPT, {
        '"""One step."""': '"""Un paso."""', "# the os module": "# el módulo os",
        'f"rank {rows[\'rank\']}: loss {rows[\'loss\']:.3f}"': 'f"rank {rows[\'rank\']}: pérdida {rows[\'loss\']:.3f}"',
        '"Loss per rank"': '"Pérdida por rank"', '"shown only"': '"solo se muestra"'})
    assert 'print(f"rank {rows[\'rank\']}: pérdida {rows[\'loss\']:.3f}")  # shown' in spanish
    assert 'import os  # el módulo os' in spanish and 'title="Pérdida por rank"' in spanish
    assert '{"rank": 0, "solo se muestra": 1}' in spanish and spanish.count("\n") == SCRIPT.count("\n")
    assert cs.differences(SCRIPT, spanish) == []


@pytest.mark.parametrize("english, spanish, why", [
    ('f"loss {x:.3f}"', 'f"pérdida {x:.2f}"', "fields"),          # a format spec is code
    ('f"loss {x}"', 'f"pérdida {y}"', "fields"),                   # so is the expression
    ('f"loss {x}"', '"pérdida"', "prefix"),                        # an f-string stays one
    ('"a rank is never negative"', '"nunca "negativo""', "valid Python"),
    ('"""One step."""', '"""Un\npaso."""', "line"),               # tracebacks name the same line
    ("# the os module", "el módulo os", "comment"),
])
def test_a_spanish_token_that_would_change_the_program_is_refused(english, spanish, why):
    with pytest.raises(cs.TranslationError, match=why):
        cs.check(english, spanish)


def test_fields_may_move_and_a_string_only_field_may_translate_its_words():
    cs.check('f"{n} lines added, {m} removed"', 'f"se añadieron {n} líneas y se quitaron {m}"')
    cs.check("f\"{'variant':<13} same\"", "f\"{'variante':<13} igual\"")
    with pytest.raises(cs.TranslationError, match="fields"):
        cs.check("f\"{'variant':<13}\"", "f\"{'variante':<12}\"")
    cs.check('"{} of {}"', '"{} de {}"')
    with pytest.raises(cs.TranslationError, match="placeholders"):
        cs.check('"rank %d of %d"', '"rank %d de %s"')
    cs.check('"100% of the data"', '"el 100% de los datos"')  # a percent sign, not a conversion


def test_a_choice_between_strings_in_a_field_may_translate_its_words_but_not_its_test():
    cs.check("f\"cache {'warm' if warm else 'cold'}\"", "f\"caché {'caliente' if warm else 'fría'}\"")
    cs.check("f\"{'pinned' if p else 'pageable':8}: x\"", "f\"{'fijada' if p else 'paginable':8}: x\"")
    cs.check("f\"{'ok' if a else 'late' if b else 'lost'} run\"", "f\"{'bien' if a else 'tarde' if b else 'perdida'} x\"")
    for spanish in ("f\"caché {'caliente' if frio else 'fría'}\"",  # the test's name
                    "f\"caché {'caliente' if not warm else 'fría'}\"",  # the test itself
                    "f\"caché {'caliente' if warm else cold}\"",  # a branch that was a string
                    "f\"caché {'caliente' if warm else 'fría':4}\""):  # the format
        with pytest.raises(cs.TranslationError, match="fields"):
            cs.check("f\"cache {'warm' if warm else 'cold'}\"", spanish)
    with pytest.raises(cs.TranslationError, match="fields"):  # a string in the test is data
        cs.check("f\"{'done' if s == 'complete' else 'no'}\"", "f\"{'hecho' if s == 'completo' else 'no'}\"")
    source = "print(f\"{'the SAME' if same else 'different'} draws\")\n"
    spanish = cs.translate(source, {"f\"{'the SAME' if same else 'different'} draws\"":
                                    "f\"sorteos {'los MISMOS' if same else 'distintos'}\""})
    assert "'los MISMOS' if same else 'distintos'" in spanish and not cs.differences(source, spanish)


def test_a_pair_for_data_is_refused_with_the_reason():
    with pytest.raises(cs.TranslationError, match="stays English.*subscript's key"):
        cs.translate(SCRIPT, {'"rank"': '"rango"'})
    with pytest.raises(cs.TranslationError, match="stays English.*directive"):
        cs.translate(SCRIPT, {"# NBVAL_CHECK_OUTPUT": "# NBVAL_COMPROBAR"})
    assert cs.translate(SCRIPT, {'"rank"': '"rank"'}) == SCRIPT  # keeping it English is fine


@pytest.mark.parametrize("change", [
    ("def step(rows)", "def paso(rows)"), ("0, \"shown", "1, \"shown"), ("rows[\"status\"]", "rows[\"estado\"]"),
    ("mode=\"fast\"", "mode=\"rápido\""), (":.3f}", ":.2f}"), ("%%writefile scripts/x.py", "%%writefile scripts/y.py"),
    ("import os  # the os module", "import os\n# the os module"),
])
def test_differences_finds_any_change_but_a_translation(change):
    changed = SCRIPT.replace(*change, 1)
    assert changed != SCRIPT
    assert cs.differences(SCRIPT, changed)


def test_an_f_string_is_one_token_and_a_multiline_docstring_keeps_its_lines():
    source = 'def f():\n    """Line one\n    line two."""\n    return f"{1 + 2} and {\'x\'}"'
    tokens = [token.text for token in cs.tokens(cs.split(source)) if token.kind == "string"]
    assert tokens == ['"""Line one\n    line two."""', 'f"{1 + 2} and {\'x\'}"']
    spanish = cs.translate(source, {tokens[0]: '"""Línea uno\n    línea dos."""'})
    assert spanish.split("\n")[1:3] == ['    """Línea uno', '    línea dos."""'] and not cs.differences(source, spanish)


def test_literal_end_reads_a_token_as_python_writes_it():
    text = 'en: "a \\"quoted\\" word"  \nes: """two\nlines"""'
    assert text[4:cs.literal_end(text, 4)] == '"a \\"quoted\\" word"'
    start = text.index('"""')
    assert text[start:cs.literal_end(text, start)] == '"""two\nlines"""'
    assert cs.literal_end("# a comment\nnext", 0) == len("# a comment")
    with pytest.raises(cs.TranslationError, match="never closed"):
        cs.literal_end('"open', 0)


def test_a_header_whose_words_are_string_only_fields_may_be_translated_by_hand():
    source = 'print(f"{\'format\':<6} {\'bits\':>4}")\nrow = f"{\'name\':<6}"\nprint(f"{x:<6} {y:>4}")\n'
    found = roles(source)
    assert found['f"{\'format\':<6} {\'bits\':>4}"'] == cs.OTHER  # shown: a pair may translate it
    assert found['f"{\'name\':<6}"'] == cs.NO_WORDS  # not shown
    assert found['f"{x:<6} {y:>4}"'] == cs.NO_WORDS  # no words at all
    assert cs.units(source) == []  # never listed automatically: the catalogs do not change
    pairs = {'f"{\'format\':<6} {\'bits\':>4}"': 'f"{\'tipo\':<6} {\'bits\':>4}"'}
    assert cs.translate(source, pairs).startswith('print(f"{\'tipo\':<6} {\'bits\':>4}")')
    with pytest.raises(cs.TranslationError, match="fields"):
        cs.translate(source, {'f"{\'format\':<6} {\'bits\':>4}"': 'f"{\'formato\':<7} {\'bits\':>4}"'})
