"""`checks.bug_hunt` (exercise 10): each check catches its own planted bug, whatever the other four do."""
import re

import pytest

from ddp_lessons import checks
from ddp_lessons.diffs import written_script
from ddp_lessons.tooling import exercises
from helpers import EXERCISES, SOLUTIONS

BUGS = ["unused parameter", "device_ids=[rank]", "shuffle=True", "no set_epoch", "barrier under rank 0"]
"""The solution's regions, in script order: each one's EXERCISE SHOWS part plants one bug."""


def script_with(bugs, folder):
    """The solution's training script with the `bugs` planted (by name) and the others fixed."""
    source = written_script(SOLUTIONS / "10_bug_hunt.ipynb", "scripts/10_bug_hunt.py")
    lines, region, part = [], -1, None
    for line in source.rstrip("\n").split("\n"):
        marker = line.strip()
        if marker == exercises.CODE_MARKERS[0]:
            region, part = region + 1, "fix"
            indent = line[:len(line) - len(line.lstrip())]
        elif marker == exercises.CODE_SHOWS:
            part = "bug"
        elif marker == exercises.CODE_MARKERS[1]:
            part = None
        elif part is None or (part == "fix") == (BUGS[region] not in bugs):
            lines.append(line if part != "bug" else indent + line[len(indent) + 1:].removeprefix(" "))
    assert region == len(BUGS) - 1, "the solution's regions no longer match BUGS"
    path = folder / f"bugs_{len(bugs)}_{abs(hash(tuple(sorted(bugs))))}.py"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_the_untouched_script_is_the_solution_with_all_five_bugs_planted(tmp_path):
    source = written_script(EXERCISES / "10_bug_hunt.ipynb", "scripts/10_bug_hunt.py")
    assert source == script_with(BUGS, tmp_path).read_text()


IN_PROCESS = [("device_ids=[rank]", checks.device_ids_per_node, "rank 2 (local rank 0) asked DDP for GPU(s) [2]"),
              ("shuffle=True", checks.one_shard_per_rank, "building rank 0's DataLoader raised ValueError"),
              ("no set_epoch", checks.new_order_each_epoch, "visited its shard in the same order in all 3 epochs")]


@pytest.mark.parametrize("bug, check, hint", IN_PROCESS, ids=[bug for bug, _, _ in IN_PROCESS])
def test_each_in_process_check_catches_its_bug_and_only_its_bug(tmp_path, bug, check, hint, fails_with):
    check(script_with([], tmp_path))
    check(script_with([b for b in BUGS if b != bug], tmp_path))
    with fails_with(hint):
        check(script_with([bug], tmp_path))


def test_a_loader_without_the_sampler_is_caught_by_its_overlapping_shards(tmp_path, fails_with):
    path = script_with([], tmp_path)
    path.write_text(path.read_text().replace("sampler=sampler)", "shuffle=True)"))
    with fails_with("rank 0 visited 64 samples, the whole data set"):
        checks.one_shard_per_rank(path)


@pytest.mark.slow
@pytest.mark.extended  # exercise 10's untouched notebook, graded by make test, hangs in this check on a real run
def test_the_barrier_check_reports_the_hang_and_where_each_rank_waited(tmp_path, fails_with):
    with fails_with("the job hung") as caught:
        checks.ranks_stay_in_step(script_with(BUGS, tmp_path))
    assert "dist.barrier()" in str(caught.value)
    checks.ranks_stay_in_step(script_with([b for b in BUGS if b != "barrier under rank 0"], tmp_path))


@pytest.mark.slow
@pytest.mark.extended  # exercise 10's untouched notebook, graded by make test, fails this check on a real run already
def test_the_unused_parameter_check_names_the_parameter(tmp_path, fails_with):
    with fails_with("parameters without a gradient: aux_head.bias, aux_head.weight"):
        checks.every_parameter_gets_a_gradient(script_with(BUGS, tmp_path))
    checks.every_parameter_gets_a_gradient(script_with([b for b in BUGS if b != "unused parameter"], tmp_path))


def test_set_epoch_called_in_train_instead_of_run_epoch_passes(tmp_path):
    path = script_with([], tmp_path)
    source = path.read_text()
    source = source.replace("        self.loader.sampler.set_epoch(epoch)\n", "")
    source = source.replace("            visited.append(self._run_epoch(epoch))",
                            "            self.loader.sampler.set_epoch(epoch)\n"
                            "            visited.append(self._run_epoch(epoch))")
    assert source.count("set_epoch(epoch)") == 1
    path.write_text(source)
    checks.new_order_each_epoch(path)


@pytest.mark.parametrize("device_ids, hint", [
    ("[rank % 2]", "3 GPUs per node, rank 2 (local rank 2) asked DDP for GPU(s) [0]"),
    ("[local_rank + 1]", "rank 0 (local rank 0) asked DDP for GPU(s) [1]"),
    ("[torch.cuda.get_device_properties(device).index]", "wrap() raised"),
])
def test_device_ids_that_fit_one_layout_or_need_a_gpu_are_caught(tmp_path, device_ids, hint, fails_with):
    path = script_with([], tmp_path)
    path.write_text(path.read_text().replace("device_ids=[device.index]", f"device_ids={device_ids}"))
    with fails_with(hint):
        checks.device_ids_per_node(path)


@pytest.mark.parametrize("device_ids", ["[local_rank]", "[torch.cuda.current_device()]", "[device]",
                                        "[int(os.environ['LOCAL_RANK'])]"])
def test_every_right_way_to_name_the_local_gpu_passes(tmp_path, device_ids):
    path = script_with([], tmp_path)
    path.write_text(path.read_text().replace("device_ids=[device.index]", f"device_ids={device_ids}"))
    checks.device_ids_per_node(path)


@pytest.mark.slow
def test_a_deleted_barrier_is_caught_by_the_rank_that_does_not_wait_for_the_checkpoint(tmp_path, fails_with):
    path = script_with([], tmp_path)
    source = path.read_text().replace(
        "            dist.barrier()  # no rank goes on before rank 0's checkpoint is complete\n", "")
    assert "dist.barrier()" not in source
    path.write_text(source)
    with fails_with("rank 1 began epoch 1 while rank 0 was still writing the previous epoch's checkpoint"):
        checks.ranks_stay_in_step(path)


@pytest.fixture
def no_launch(monkeypatch):
    """The checks below must decide without a torchrun launch (each test resets the hints, as a fresh kernel)."""
    from ddp_lessons import launch
    from ddp_lessons.checks import common

    def refuse(*args, **kwargs):
        raise AssertionError("launched torchrun")
    monkeypatch.setattr(launch, "run_torchrun", refuse)
    monkeypatch.setattr(common, "_given", common.Counter())


def with_ddp_option(path, option):
    """The script at `path` with `option` passed to both of wrap()'s DDP(...) calls."""
    source = path.read_text()
    source = source.replace("return DDP(model)", f"return DDP(model, {option})")
    source = source.replace("device_ids=[device.index])", f"device_ids=[device.index], {option})")
    assert source.count(option) == 2
    path.write_text(source)
    return path


@pytest.mark.parametrize("option", ["find_unused_parameters=True", "static_graph=True"])
def test_an_option_that_hides_the_unused_parameter_is_caught_before_any_launch(tmp_path, option, no_launch):
    from ddp_lessons.checks import common
    path = with_ddp_option(script_with(["unused parameter"], tmp_path), option)
    with pytest.raises(common.CheckFailed, match="Net's parameters aux_head.bias, aux_head.weight still get no "
                                                 "gradient") as first:
        checks.every_parameter_gets_a_gradient(path)
    assert first.value.hint == "unused-hidden" and "How to fix it" not in str(first.value)
    with pytest.raises(common.CheckFailed, match="How to fix it: delete what forward") as second:
        checks.every_parameter_gets_a_gradient(path)
    assert second.value.fix_shown and option.split("=")[0] in str(second.value)


def test_find_unused_parameters_on_a_model_with_none_is_caught_as_a_cost(tmp_path, no_launch):
    from ddp_lessons.checks import common
    path = with_ddp_option(script_with([], tmp_path), "find_unused_parameters=True")
    with pytest.raises(common.CheckFailed, match="yet every parameter of Net gets a gradient") as first:
        checks.every_parameter_gets_a_gradient(path)
    assert first.value.hint == "find-unused"


def test_the_fixed_net_without_options_goes_on_to_the_launch(tmp_path, no_launch):
    with pytest.raises(AssertionError, match="launched torchrun"):
        checks.every_parameter_gets_a_gradient(script_with([], tmp_path))
    with pytest.raises(AssertionError, match="launched torchrun"):  # the launch shows DDP's own error
        checks.every_parameter_gets_a_gradient(script_with(["unused parameter"], tmp_path))


RIGHT = {"Net": "d", "wrap": "a", "make_loader": "f", "Trainer._run_epoch": "c", "Trainer.train": "g"}


def test_the_symptoms_pass_when_right_and_name_the_unanswered_places(no_launch, fails_with):
    checks.bug_symptoms(RIGHT)
    checks.bug_symptoms({place: f" {letter.upper()}" for place, letter in RIGHT.items()})
    with fails_with("no letter (a to h) for Net, wrap, make_loader, Trainer._run_epoch, Trainer.train"):
        checks.bug_symptoms(dict.fromkeys(RIGHT, "?"))
    with fails_with("no letter (a to h) for Trainer.train"):
        checks.bug_symptoms({**RIGHT, "Trainer.train": "gg"})


@pytest.mark.parametrize("place, letter, symptom, fix", [
    ("Trainer.train", "e", "(e) is what no barrier at all between rank 0's save and the other ranks' load does",
     "a barrier that only rank 0 reaches"),  # the missing barrier's symptom, not the misplaced one's
    ("make_loader", "b", "(b) is not what the bug in make_loader does", "shuffle=True next to a sampler"),
    ("wrap", "d", "(d) is not what the bug in wrap does: (d) is what the bug in Net does",
     "device_ids=[rank] names GPU RANK"),
    ("Net", "h", "(h) is what model.to(\"cuda\") without torch.cuda.set_device(local_rank) does",
     "a parameter that forward() never uses"),
])
def test_a_wrong_symptom_names_the_mix_up_then_what_the_bug_does(no_launch, place, letter, symptom, fix):
    from ddp_lessons.checks import common
    answers = {**RIGHT, place: letter}
    with pytest.raises(common.CheckFailed, match=re.escape(symptom)) as first:
        checks.bug_symptoms(answers)
    assert first.value.hint == f"symptom-{place}" and fix not in str(first.value)
    with pytest.raises(common.CheckFailed, match=re.escape(fix)):
        checks.bug_symptoms(answers)
