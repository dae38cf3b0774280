"""Live ranks: run notebook cells on every rank of a persistent process group (``%%ranks``).

``%load_ext ddp_lessons.live`` adds the magics (`magics`: ``%ranks``, ``%%ranks``,
``%ranks_gather``); `group.RankGroup` is the API under them. Design and measurements: docs/LIVE.md.
"""


def load_ipython_extension(ipython) -> None:
    """``%load_ext ddp_lessons.live``: register ``%ranks``, ``%%ranks`` and ``%ranks_gather``."""
    from ddp_lessons.live import magics

    magics.load_ipython_extension(ipython)


def unload_ipython_extension(ipython) -> None:
    """``%unload_ext ddp_lessons.live``: stop the live ranks."""
    from ddp_lessons.live import magics

    magics.unload_ipython_extension(ipython)
