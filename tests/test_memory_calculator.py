"""The lesson 15 calculator: predictions from `sharding.predict`, a measured ledger beside them when one exists."""
from ddp_lessons import sharding
from ddp_lessons.memory_calculator import MemoryCalculator

PSI, TENSORS, ACTIVATIONS = 86_544, 6, 77_824
MEASURED = {("fsdp", 4): {"parameters": 86_544, "gradients": 86_544, "optimizer": 173_112, "buckets": 0,
                          "activations": ACTIVATIONS, "total": 86_544 * 2 + 173_112 + ACTIVATIONS}}


def calculator(**settings):
    return MemoryCalculator(PSI, tensors=TENSORS, activations=ACTIVATIONS, measured=MEASURED, **settings)


def test_the_prediction_is_the_formula_for_the_current_settings():
    calc = calculator(world_size=4, strategy="zero1", optimizer="momentum", precision="mixed")
    assert calc.prediction() == sharding.predict(PSI, 4, "zero1", "momentum", "mixed", tensors=TENSORS,
                                                 activations=ACTIVATIONS, bucket_view=False)  # DDP's default


def test_a_measured_configuration_is_shown_next_to_its_prediction_and_agrees():
    calc = calculator(world_size=4, strategy="fsdp")
    rows = calc.rows()
    assert [row for row, _, _ in rows] == [*sharding.ROWS, "total"]
    assert all(predicted == measured for _, predicted, measured in rows)
    assert "mean over ranks" in calc.text() and "0.083 MiB" in calc.text()


def test_settings_no_run_had_show_no_measurement():
    for settings in (dict(world_size=2), dict(optimizer="sgd"), dict(precision="mixed"), dict(strategy="ddp")):
        calc = calculator(**{"world_size": 4, "strategy": "fsdp", **settings})
        assert calc.measurement() is None
        assert all(measured is None for _, _, measured in calc.rows())
        assert "no run of this lesson had these settings" in calc.text()


def test_outside_jupyter_it_is_text_and_html_without_a_widget():
    bundle = calculator()._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html"}
    assert bundle["text/plain"].startswith("Ψ = 86,544 parameters, 4 rank(s), FSDP2")
    assert "<table>" in bundle["text/html"]


def test_ddp_is_predicted_with_its_default_buckets_a_second_copy_of_the_gradients():
    """Lesson 15's measured ledger of lesson 7's model (Ψ = 321 in T = 4 tensors, Adam, fp32) after a step
    under DDP: 6,436 bytes with gradient_as_bucket_view=False (DDP's default), 5,152 with True."""
    calc = MemoryCalculator(321, world_size=2, strategy="ddp", tensors=4)
    assert calc.settings["bucket_view"] is False and calc.prediction()["buckets"] == 4 * 321
    assert calc.prediction()["total"] == 6_436
    calc.settings.update(bucket_view=True)
    assert calc.prediction()["buckets"] == 0 and calc.prediction()["total"] == 5_152


def test_a_measurement_is_shown_only_for_the_bucket_layout_it_was_measured_with():
    ddp_view = {"parameters": 4 * PSI, "gradients": 4 * PSI, "optimizer": 8 * PSI + 4 * TENSORS, "buckets": 0,
                "activations": ACTIVATIONS}
    ddp_view["total"] = sum(ddp_view.values())
    calc = MemoryCalculator(PSI, tensors=TENSORS, activations=ACTIVATIONS, strategy="ddp", world_size=2,
                            measured={("ddp", 2): ddp_view, **MEASURED}, measured_bucket_view=True)
    assert calc.measurement() is None  # the setting is DDP's default, the run used bucket views
    calc.settings.update(bucket_view=True)
    assert calc.measurement() is ddp_view and all(p == m for _, p, m in calc.rows())
    calc.settings.update(strategy="fsdp", world_size=4, bucket_view=False)  # FSDP2 has no DDP buckets
    assert calc.measurement() is MEASURED["fsdp", 4]


def test_the_tensor_count_is_a_setting_not_the_lesson_model_s():
    calc = calculator(world_size=1, strategy="ddp")
    calc.settings.update(psi=7_000_000_000, tensors=291)  # another model: its own Adam step counters
    assert calc.prediction()["optimizer"] == 8 * 7_000_000_000 + 4 * 291
    assert calc.measurement() is None
    calc.settings.update(psi=PSI, tensors=TENSORS + 1, world_size=4, strategy="fsdp")
    assert calc.measurement() is None  # same Ψ, other tensors: not the model the lesson ran
    calc.settings.update(tensors=TENSORS)
    assert calc.measurement() is MEASURED["fsdp", 4]


def test_changing_a_control_redraws_the_table():
    calc = calculator()
    box = calc.widget()
    controls = [control for row in box.children[:-1] for control in row.children]
    table = box.children[-1]
    assert "mean over ranks" in table.value
    controls[1].value = 64  # world size
    assert calc.settings["world_size"] == 64 and "no run of this lesson" in table.value
    assert f"{sharding.predict(PSI, 64, 'fsdp', tensors=TENSORS, activations=ACTIVATIONS)['total'] / 2**20:,.3f}" \
        in table.value
    tensors, bucket_view = controls[6], controls[7]
    controls[2].value, controls[1].value = "ddp", 1
    bucket_view.value = True
    assert calc.settings["bucket_view"] is True and calc.prediction()["buckets"] == 0
    tensors.value = 1000
    assert calc.settings["tensors"] == 1000 and calc.prediction()["optimizer"] == 8 * PSI + 4 * 1000


def test_its_labels_are_sharding_s_in_english_and_translated_in_spanish():
    from ddp_lessons.memory_calculator import precision_label, row_label, strategy_label
    assert {k: strategy_label(k, "en") for k in sharding.STRATEGIES} == sharding.STRATEGIES
    assert {k: precision_label(k, "en") for k in sharding.PRECISIONS} == sharding.PRECISIONS
    assert [row_label(row, "en") for row in (*sharding.ROWS, "total")] == [*sharding.ROWS, "total"]
    assert strategy_label("fsdp", "es").endswith("estado del optimizador fragmentados")


def test_in_a_spanish_notebook_it_speaks_spanish(monkeypatch):
    monkeypatch.setenv("DDP_LESSONS_LANG", "es")
    calc = calculator(world_size=4, strategy="fsdp")
    text = calc.text()
    assert text.startswith("Ψ = 86 544 parámetros, 4 rank(s), FSDP2 / ZeRO-3: parámetros")  # Spanish numbers
    assert text.splitlines()[1].split() == ["por", "rank", "predicho", "medido"]
    assert "activaciones" in text and "(media sobre los ranks)" in text and "0,083 MiB" in text
    assert "<th>por rank</th><th>predicho</th><th>medido</th>" in calc.html()
    box = calc.widget()
    assert [c.description for c in box.children[0].children] == ["parámetros Ψ", "world size", "fragmentación"]
    assert box.children[0].children[2].options[0] == ("DDP: cada rank lo tiene todo", "ddp")
    calc.settings.update(world_size=2)
    assert "ninguna ejecución de esta lección tuvo estos ajustes" in calc.text()
