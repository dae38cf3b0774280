# Hidden check: make_accelerator() takes its accumulation steps and its checkpoint folder from args
# points: 1
import argparse
import tempfile
from pathlib import Path

from ddp_lessons import scripts
from ddp_lessons.i18n import choose

make_accelerator = scripts.load_module("scripts/14_port.py", "hidden_14_port").make_accelerator  # as written now
folder = tempfile.mkdtemp(prefix="hidden-14-")
args = argparse.Namespace(epochs=2, batch_size=16, accumulate=3, lr=0.05, seed=0, snapshot=folder)
accelerator = make_accelerator(args)
assert accelerator.gradient_accumulation_steps == 3, choose({
    "en": "make_accelerator(args) with --accumulate 3 made an Accelerator that accumulates "
          "{steps} batch(es) per step: pass gradient_accumulation_steps=args.accumulate, not a number",
    "es": "make_accelerator(args) con --accumulate 3 creó un Accelerator que acumula {steps} lote(s) por paso: "
          "pase gradient_accumulation_steps=args.accumulate, no un número"},
    steps=accelerator.gradient_accumulation_steps)
project = accelerator.project_configuration.project_dir
assert project is not None and Path(project).resolve() == Path(folder).resolve(), choose({
    "en": "make_accelerator(args) with --snapshot {folder} keeps its checkpoints in {project}: pass "
          "ProjectConfiguration(project_dir=args.snapshot, ...), where resume(accelerator, args.snapshot) looks",
    "es": "make_accelerator(args) con --snapshot {folder} guarda sus checkpoints en {project}: pase "
          "ProjectConfiguration(project_dir=args.snapshot, ...), que es donde busca resume(accelerator, args.snapshot)"},
    folder=folder, project=project)
print("✓ hidden: --accumulate and --snapshot reach the Accelerator")
