"""Write examples/es/: the Spanish edition's take-home files, exactly what the Spanish lesson 12 writes.

The English take-home files are examples/train_ddp.py and examples/train_ddp.sbatch, pasted into lesson
12's %%writefile cells. The Spanish lesson's cells are those with their comments and the strings they
print in Spanish (i18n/es/notebooks/12_to_the_cluster.md, `make translations`); this copies what they
write into examples/es/. tests/test_examples.py fails when the two differ. After a change to the
script or its Spanish:
    .venv/bin/python -m ddp_lessons make-translations && .venv/bin/python tools/write_examples_es.py
"""
from pathlib import Path

from ddp_lessons.diffs import written_script

ROOT = Path(__file__).resolve().parents[1]
LESSON = ROOT / "notebooks" / "es" / "12_to_the_cluster.ipynb"
NAMES = ("train_ddp.py", "train_ddp.sbatch")


def main() -> None:
    folder = ROOT / "examples" / "es"
    folder.mkdir(exist_ok=True)
    for name in NAMES:
        (folder / name).write_text(written_script(LESSON, f"scripts/{name}"))
        print(f"wrote {(folder / name).relative_to(ROOT)}")


if __name__ == "__main__":
    main()
