"""The errors learners meet (`runtime.signatures`): each signature recognises a real message, the launcher
adds its line (in the notebook's language), and the README's tables and docs/ERRORS.md are the table's."""
import ast
import json
import socket
from pathlib import Path

import pytest
import torch

from ddp_lessons import launch
from ddp_lessons.runtime import contract, diagnose, signatures
from ddp_lessons.tooling import cli

SCRIPTS = Path(__file__).parent / "scripts"
ROOT = Path(__file__).resolve().parents[1]
NO_GPU = pytest.mark.skipif(torch.cuda.is_available(), reason="the error is the one a machine without CUDA gives")


def test_every_signature_recognises_its_real_example_and_no_other_comes_first():
    examples = signatures.examples()
    assert set(examples) == {s.name for s in signatures.SIGNATURES}
    for s in signatures.SIGNATURES:
        example = examples[s.name]
        assert example["source"] and example["source_es"], s.name
        assert signatures.find(example["message"]) is s, (s.name, example["message"])


def test_the_forked_cuda_message_is_the_one_torch_raises():
    """No GPU here to fork after CUDA: the example is read where torch raises it (torch.cuda._lazy_init)."""
    tree = ast.parse((Path(torch.__file__).parent / "cuda" / "__init__.py").read_text())
    texts = {node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)}
    assert signatures.examples()["cuda-in-forked-process"]["message"].removeprefix("RuntimeError: ") in texts


@NO_GPU
@pytest.mark.parametrize("call", ["cuda", "set_device"])
def test_cuda_calls_on_a_machine_without_cuda_are_recognised(call):
    with pytest.raises((AssertionError, AttributeError, RuntimeError)) as info:
        torch.zeros(1).cuda() if call == "cuda" else torch.cuda.set_device(0)
    assert signatures.find(str(info.value)).name == "no-cuda"


@pytest.mark.slow
def test_an_unused_parameter_gives_the_unfinished_reduction_message(group_of_one):
    from torch.nn.parallel import DistributedDataParallel as DDP

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.used, self.unused = torch.nn.Linear(2, 1), torch.nn.Linear(2, 1)

        def forward(self, x):
            return self.used(x)

    model = DDP(Net())
    model(torch.randn(3, 2)).sum().backward()
    with pytest.raises(RuntimeError) as info:
        model(torch.randn(3, 2)).sum().backward()
    assert signatures.find(str(info.value)).name == "unfinished-reduction"


def test_the_launchers_message_adds_the_line_in_the_notebooks_language(tmp_path, monkeypatch):
    result = launch.RunResult(command=[], nproc=2, run_dir=tmp_path, returncode=1, rank_lines={
        0: ["Traceback (most recent call last):", "RuntimeError: Distributed package doesn't have NCCL built in"]})
    monkeypatch.setenv(contract.LANGUAGE_ENV, "en")
    first, second = diagnose.failure_message(result, diagnose.attribute(result)).splitlines()[:2]
    assert first == "rank 0 failed: RuntimeError: Distributed package doesn't have NCCL built in"
    assert second.startswith("what it means: the script asks for the nccl backend") and second.endswith("(lesson 2)")
    monkeypatch.setenv(contract.LANGUAGE_ENV, "es")
    second = diagnose.failure_message(result, diagnose.attribute(result)).splitlines()[1]
    assert second.startswith("qué significa: el script pide el backend nccl") and second.endswith("(lección 2)")


def test_only_the_root_causes_error_is_explained(tmp_path):
    """A rank killed by a signal (its own meaning) is not explained by its peer's lost connection."""
    sample = json.loads((Path(__file__).parent / "data/diagnose/sigkill_peer_named_root_cause.json").read_text())
    result = launch.RunResult(command=[], nproc=2, run_dir=tmp_path, returncode=1,
                              launcher_lines=sample["launcher_lines"],
                              rank_lines={int(r): lines for r, lines in sample["rank_lines"].items()})
    failures = diagnose.attribute(result)
    assert [f.kind for f in failures] == ["signal", "peer-lost"]
    assert signatures.find(failures[1].error).name == "peer-lost"
    assert "what it means" not in diagnose.failure_message(result, failures)


def test_an_error_no_signature_knows_adds_no_line(tmp_path):
    result = launch.RunResult(command=[], nproc=1, run_dir=tmp_path, returncode=1, rank_lines={
        0: ["Traceback (most recent call last):", "KeyError: 'lr'"]})
    assert signatures.explain("KeyError: 'lr'") is None
    assert "what it means" not in diagnose.failure_message(result, diagnose.attribute(result))


def test_readme_tables_and_errors_doc_are_written_from_the_table(capsys):
    assert cli.main(["make-error-docs", "--check"]) == 0, capsys.readouterr().out
    readme, readme_es = (ROOT / "README.md").read_text(), (ROOT / "README.es.md").read_text()
    doc, doc_es = (ROOT / "docs/ERRORS.md").read_text(), (ROOT / "docs/es/ERRORS.md").read_text()
    for s in signatures.SIGNATURES:
        assert s.meaning("en") in readme and s.meaning("es") in readme_es and s.meaning("en") not in readme_es
        assert signatures.examples()[s.name]["message"] in doc and signatures.examples()[s.name]["message"] in doc_es


def test_a_stale_readme_table_is_found(tmp_path, capsys):
    for name in ("README.md", "README.es.md"):
        (tmp_path / name).write_text((ROOT / name).read_text().replace("| `Duplicate GPU detected` |", "| x |"))
    assert cli.main(["make-error-docs", "--check", "--root", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "README.md: out of date" in out and "docs/ERRORS.md: out of date" in out
    assert cli.main(["make-error-docs", "--root", str(tmp_path)]) == 0
    assert cli.main(["make-error-docs", "--check", "--root", str(tmp_path)]) == 0


CASES = [  # (case, signature): real runs through the launcher on this machine
    pytest.param("nccl", "nccl-not-built-in", marks=NO_GPU),
    pytest.param("to-gpu", "no-cuda", marks=NO_GPU),
    ("fixed-port", "address-in-use"),
]


@pytest.mark.slow
@pytest.mark.parametrize("case,name", CASES)
def test_a_real_learner_error_gets_its_line_in_the_launchers_message(tmp_path, monkeypatch, case, name):
    """The ranks' real errors; for a fixed port the ranks start their own store, as under --max-restarts,
    while this test holds the port (an earlier run still alive)."""
    monkeypatch.setenv(contract.LANGUAGE_ENV, "en")
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        args = [case, str(held.getsockname()[1])]
        env = {contract.SEPARATE_STORE_ENV: "1"} if case == "fixed-port" else None
        with pytest.raises(launch.RankFailedError) as info:
            launch.run_torchrun(SCRIPTS / "learner_errors.py", nproc=2, args=args, env=env, run_dir=tmp_path,
                                timeout=60, echo=False)
    message, signature = str(info.value), next(s for s in signatures.SIGNATURES if s.name == name)
    assert signatures.find(info.value.failures[0].error) is signature, message
    assert f"what it means: {signature.meaning('en')} (lesson {signature.lesson})" == message.splitlines()[1]
