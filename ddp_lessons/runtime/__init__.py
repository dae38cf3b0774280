"""How a distributed job is started, watched and explained (the launcher's and live ranks' internals).

Lessons never import these modules; they call `ddp_lessons.launch` (and `ddp_lessons.live`), which
are built on them:

* `processes`: process trees by pid (find, wait with a deadline, kill);
* `rank_output`: torchrun's teed output filed under the rank that wrote it, and error-message tails;
* `diagnose`: which rank caused a failure, and the launcher's error texts;
* `stacks`: where each rank of a hung job waits (py-spy, faulthandler fallback);
* `progress`: live per-rank progress bars of a running job;
* ``rank_hooks/``: the ``sitecustomize`` every launched rank runs, recording evidence for the above.
"""
