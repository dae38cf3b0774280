"""Start one grading job confined: ``python -I confine.py [options] -- COMMAND...``.

Moves itself into the job's cgroups (so everything the job starts is counted there from its first
instruction: no fork can slip out before the move), sets the per-process resource limits, makes its
processes the first the out-of-memory killer picks, then replaces itself with COMMAND (bwrap, or
pytest when unsandboxed). The grader runs it as a script with ``python -I``: the standard library
only, nothing of the course is imported, and it works from any thread of the grader (unlike a
``preexec_fn``).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="confine")
    parser.add_argument("--cgroup-procs", action="append", default=[], metavar="FILE",
                        help="a cgroup's cgroup.procs file to move this process into (repeatable)")
    parser.add_argument("--fsize", type=int, metavar="BYTES", help="RLIMIT_FSIZE: the largest file it may write")
    parser.add_argument("--oom-score-adj", type=int, metavar="N",
                        help="raise /proc/self/oom_score_adj to N (never lowered: that needs privileges)")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command to run")
    for procs in args.cgroup_procs:
        with open(procs, "w") as out:  # an error here ends the job: never run it unconfined by mistake
            out.write(str(os.getpid()))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a crashing process writes no core file into scratch
    if args.fsize is not None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (args.fsize, args.fsize))
    if args.oom_score_adj is not None:
        try:
            with open("/proc/self/oom_score_adj", "r+") as adj:
                if int(adj.read()) < args.oom_score_adj:
                    adj.seek(0)
                    adj.write(str(args.oom_score_adj))
        except OSError:
            pass  # a preference for the OOM killer, not a limit: the cgroup still bounds the job
    sys.stdout.flush()
    os.execvp(command[0], command)
    return 127  # not reached: execvp raises if it fails


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
