"""Values a lesson's code keeps, compares and also shows: the names of its cases, variants and verdicts.

A lesson compares such a value (``row["without barrier"]``, ``assert loaded == ["new", "OLD"]``) and shows
it to the learner, so the value itself stays English in both editions and the learner reads
``i18n.label(value)``: the value in English, its Spanish in a Spanish notebook (the entry of the same
English in `ddp_lessons.i18n.messages_es.SPANISH`). `label` refuses a value not listed here, and
`tests/test_translations.py` fails when a value listed here has no Spanish: a new case shown without its
Spanish fails a test, not a Spanish reader.
"""

LABELS = frozenset({
    # lesson 6: whose buffers a forward started from
    "rank 0's", "own",
    # lessons 8 and 11: the race cases of a rank-0 write and the other ranks' read
    "without barrier", "with barrier", "without barrier, rank 1 later",
    # lesson 8: which weights a rank loaded; how a barrier ended
    "new", "OLD", "unknown", "passed", "failed",
    # lesson 9: weak or strong scaling, and which one is ahead
    "weak", "strong", "weak scaling ahead", "strong scaling ahead", "about even",
    # lesson 9: the sync modes of the scaling table (bench_train.train_step's `sync`)
    "every", "never", "last",
    # lesson 9: the comments and docstrings of the benchmark's functions it prints (i18n.source)
    "One optimizer step over `accumulate` micro-batches, all-reducing as `sync` says.",
    "Build the plan's model, wrap it in DDP, and time its steps on this rank.",
    "device index == LOCAL_RANK when each rank has its own GPU",
    # lesson 10: one seed for every rank, or one per rank
    "same", "per-rank",
    # lesson 11: what a rank found in the prepared file, and the batch/learning-rate setups
    "complete", "INCOMPLETE", "partial", "missing",
    "1 rank x 32", "4 ranks x 32, same lr", "4 ranks x 32, lr x4 + warm-up",
    "2 ranks x 32 x 2 accumulated, lr x4 + warm-up", "4 ranks x 256, lr x32 + warm-up",
    "4 ranks, same lr", "4 ranks, lr x4",
})
"""Every value a lesson shows through `i18n.label`, in English (the value the code keeps)."""
