"""The errors every learner meets, explained where they appear: one table of signatures.

A learner who brings a script from elsewhere (PyTorch's tutorials, a blog, a cluster job) meets the
same few messages again and again. Each `Signature` here is a pattern on a rank's error text, one
line saying what it means on this machine and what to change, and the lesson that shows it. When a
failed rank's error matches, `runtime.diagnose` adds that line to `RankFailedError`'s message, in
the notebook's language (`i18n.tr`).

The same table writes the README's (and README.es.md's) table of error messages and docs/ERRORS.md
(with docs/es/ERRORS.md): ``python -m ddp_lessons make-error-docs`` (``--check`` in the tests).
A real example of every message, with where it was seen, is in ``ddp_lessons/data/error_examples.json``
(`examples`); tests/test_signatures.py produces the ones this CPU machine can produce through the
launcher and matches every example against the table.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ddp_lessons.i18n import tr

EXAMPLES = Path(__file__).resolve().parents[1] / "data" / "error_examples.json"
"""{signature name: {"message": a real error text, "source": where it was seen, "source_es": the same in Spanish}}."""


@dataclass(frozen=True)
class Signature:
    """One message learners meet: how to recognise it, what it means here, and where it is taught."""

    name: str
    pattern: str
    """A regular expression searched (case-insensitively) in the rank's error text."""
    shows: str
    """The words of the message as the README's table shows them."""
    lesson: int
    """The lesson that shows it (``notebooks/NN_*.ipynb``)."""
    meaning: Callable[[str | None], str]
    """What it means on this machine and what to change, in a language (None: the notebook's)."""

    def matches(self, text: str) -> bool:
        return re.search(self.pattern, text, re.IGNORECASE) is not None


SIGNATURES: tuple[Signature, ...] = (
    Signature(
        "nccl-not-built-in", r"Distributed package doesn't have NCCL built in",
        "Distributed package doesn't have NCCL built in", 2,
        lambda lang=None: tr(
            "the script asks for the nccl backend, which needs a CUDA GPU per rank, and this torch or machine "
            "has none: use gloo here (`init_process_group()` without a backend picks it, or "
            "`backend.choose()`) and keep the tensors on the CPU", lang=lang)),
    Signature(
        "no-cuda", r"Cannot access accelerator device when none is available|Torch not compiled with CUDA "
        r"enabled|has no attribute '_cuda_setDevice'",
        "Cannot access accelerator device when none is available / Torch not compiled with CUDA enabled", 3,
        lambda lang=None: tr(
            "the script puts the model or tensors on a GPU (`.to(local_rank)`, `.cuda()`, "
            "`torch.cuda.set_device`) and this machine has none: choose the device from what is there "
            "(`torch.device('cuda', local_rank) if torch.cuda.is_available() else torch.device('cpu')`, "
            "or `backend.choose().device`)", lang=lang)),
    Signature(
        "duplicate-gpu", r"Duplicate GPU detected", "Duplicate GPU detected", 3,
        lambda lang=None: tr(
            "two ranks are on the same GPU, and nccl allows one rank per GPU: call "
            "`torch.cuda.set_device(local_rank)` (LOCAL_RANK, not RANK) before `init_process_group`, start "
            "at most one rank per GPU, or use gloo to let ranks share a GPU", lang=lang)),
    Signature(
        "no-backend-for-cpu", r"No backend type associated with device type cpu",
        "No backend type associated with device type cpu", 3,
        lambda lang=None: tr(
            "a collective got a CPU tensor, but the process group has only nccl, which works on GPU tensors: "
            "move the tensor to the rank's GPU (`.to(device)`), or give CPU tensors a gloo group "
            "(`dist.new_group(backend='gloo')`)", lang=lang)),
    Signature(
        "address-in-use", r"address already in use|EADDRINUSE", "Address already in use", 7,
        lambda lang=None: tr(
            "a fixed rendezvous port (MASTER_PORT, `--master_port`, `tcp://host:port` in the script) is "
            "already taken, often by an earlier run that is still alive: remove the fixed port and let "
            "torchrun choose one (`--standalone`, as `run_torchrun` does), or stop the old run", lang=lang)),
    Signature(
        "unfinished-reduction", r"Expected to have finished reduction in the prior iteration",
        "Expected to have finished reduction in the prior iteration", 10,
        lambda lang=None: tr(
            "some parameters got no gradient in the last step (a layer forward never uses, or a branch taken "
            "only sometimes), so DDP's all-reduce never finished: use them in the loss or remove them, or "
            "pass `find_unused_parameters=True` to DDP; `TORCH_DISTRIBUTED_DEBUG=INFO` names them", lang=lang)),
    Signature(
        "peer-lost", r"Connection closed by peer|Connection reset by peer|Read error",
        "Connection closed by peer / Connection reset by peer / Read error", 10,
        lambda lang=None: tr(
            "a collective lost a peer: one rank ended first (it crashed, was killed, or left the "
            "training loop early), so look at the rank named first; every rank must run the same collectives, "
            "so a rank-local `break` or early stop must be agreed by all ranks (all-reduce the stop flag)",
            lang=lang)),
    Signature(
        "cuda-out-of-memory", r"CUDA out of memory", "CUDA out of memory", 15,
        lambda lang=None: tr(
            "this rank's GPU is full: check that each rank uses its own GPU (`torch.cuda.set_device(local_rank)`, "
            "not every rank on cuda:0), then lower the batch size per rank, or use mixed precision or "
            "sharding (FSDP)", lang=lang)),
    Signature(
        "cuda-in-forked-process", r"Cannot re-initialize CUDA in forked subprocess",
        "Cannot re-initialize CUDA in forked subprocess", 14,
        lambda lang=None: tr(
            "CUDA was used in the parent before this process was forked (`notebook_launcher` forks the kernel; "
            "`multiprocessing` with fork; DataLoader workers after a CUDA call): restart the kernel and touch no "
            "GPU before `notebook_launcher`, or start ranks with torchrun or `mp.spawn`, and give DataLoader "
            "workers `multiprocessing_context='spawn'`", lang=lang)),
)
"""Every signature, the most specific first (the first that matches is the one shown)."""


def find(text: str | None) -> Signature | None:
    """The first signature whose pattern occurs in `text`, or None."""
    return next((s for s in SIGNATURES if text and s.matches(text)), None)


def explain(text: str | None, lang: str | None = None) -> str | None:
    """The line the launcher adds for an error `text`: what it means and the lesson, or None."""
    signature = find(text)
    if signature is None:
        return None
    return tr("what it means: {meaning} (lesson {lesson})", lang=lang, meaning=signature.meaning(lang),
              lesson=signature.lesson)


def examples() -> dict[str, dict[str, str]]:
    """{signature name: {"message": a real error text, "source": where it was seen, "source_es": the same
    in Spanish}}."""
    return json.loads(EXAMPLES.read_text(encoding="utf-8"))


def lesson_link(lesson: int, lang: str, root: str) -> str:
    """A markdown link to lesson `lesson` from a file in `root` (``""``: the repository's root)."""
    names = sorted(p.name for p in (Path(__file__).resolve().parents[2] / "notebooks").glob(f"{lesson:02d}_*.ipynb"))
    name = names[0] if names else f"{lesson:02d}"
    folder = "notebooks/es/" if lang == "es" else "notebooks/"
    return f"[{tr('lesson {lesson}', lang=lang, lesson=lesson)}]({root}{folder}{name})"


def markdown_table(lang: str = "en", root: str = "") -> str:
    """The README's table of messages: the words to look for, what they mean here, the lesson."""
    head = tr("| message in the error | what it means and what to change | shown in |", lang=lang)
    rows = [head, "|---|---|---|"]
    rows += [f"| `{s.shows}` | {s.meaning(lang)} | {lesson_link(s.lesson, lang, root)} |" for s in SIGNATURES]
    return "\n".join(rows)


def errors_doc(lang: str = "en") -> str:
    """docs/ERRORS.md (or its Spanish twin): each message, a real example and what it means here."""
    root = "../../" if lang == "es" else "../"
    found = examples()
    parts = [tr("# Error messages learners meet, explained", lang=lang), "",
             tr("When a rank fails with one of these messages, `run_torchrun`'s `RankFailedError` adds one line "
                "saying what it means and what to change (the `what it means:` line below). The table lives in "
                "`ddp_lessons/runtime/signatures.py`; this page and the README's table are generated from it "
                "(`python -m ddp_lessons make-error-docs`). Each example is a real message, with where it was "
                "seen.", lang=lang)]
    for s in SIGNATURES:
        example = found[s.name]
        parts += ["", f"## `{s.shows}`", "", "```", example["message"], "```", "",
                  tr("Seen: {source}.", lang=lang, source=example["source_es" if lang == "es" else "source"]), "",
                  tr("What it means: {meaning}. See {link}.", lang=lang, meaning=s.meaning(lang),
                     link=lesson_link(s.lesson, lang, root))]
    return "\n".join(parts) + "\n"
