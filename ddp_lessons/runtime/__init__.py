"""How a distributed job is started, watched and explained (the launchers' and live ranks' internals).

Lessons never import these modules; they call `ddp_lessons.launch` (and `accelerate_launch`,
`ddp_lessons.live`), which are built on them:

* `contract`: the job contract, every environment name launchers and ranks share, the run
  directory's files, and `rank_environment` (it imports nothing of the package: any layer may read it);
* `processes`: process trees by pid (find, wait with a deadline, kill) and `Job`, what both
  launchers run on;
* `rank_output`: torchrun's teed output filed under the rank that wrote it, and error-message tails;
* `diagnose`: which rank caused a failure, and the launcher's error texts;
* `signatures`: the errors learners meet (a pattern, what it means here, the lesson): the line
  `RankFailedError` adds, the README's table and docs/ERRORS.md;
* `stacks`: a hung rank's Python stack (py-spy, faulthandler fallback) and where it waits;
* `hang_report`: where each hung rank was, one report for the launcher and live ranks;
* `progress`: live per-rank progress bars of a running job;
* ``rank_hooks/``: the ``sitecustomize`` every launched rank runs, recording evidence for the above.
"""
