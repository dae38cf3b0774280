"""tests/nbval_sanitize.cfg, applied as nbval applies it: what varies between runs compares equal,
and nothing else does."""
import re

from nbval.plugin import get_sanitize_patterns

from helpers import ROOT

PATTERNS = get_sanitize_patterns((ROOT / "tests" / "nbval_sanitize.cfg").read_text())


def sanitize(text: str) -> str:
    for regex, replace in PATTERNS:  # in file order, as nbval's sanitize()
        text = re.sub(regex, replace, text)
    return text


def test_a_rank_that_gave_up_in_gloo_reads_the_same_whether_it_timed_out_or_lost_its_peer():
    """Lesson 10's uneven batches: both ranks time out at 5 s, and the second may see the first's exit."""
    timed_out = "    RuntimeError: Timed out waiting 5000ms for recv operation to complete\n"
    closed = ("    RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection "
              "closed by peer [127.0.0.1]:39816. This is typically caused by a remote worker crashing.\n")
    shortened = ("    RuntimeError: Connection closed by peer [127.0.0.1]:7848. This is typically caused by a remote "
                 "worker crashing. Check the logs of the remote worker before reporting an error. GLHF! 🏖️\n")
    assert sanitize(timed_out) == sanitize(closed) == sanitize(shortened) == "    RuntimeError: GLOO-GAVE-UP-WAITING\n"
    assert sanitize("RuntimeError: Timed out waiting 5000ms for send operation to complete") != \
        sanitize(timed_out.strip())  # a send that timed out is another story


def test_run_folders_times_and_addresses_are_sanitized_and_numbers_that_carry_a_claim_are_not():
    assert sanitize("runs/10_uneven-20261202-080139-12nfoli_ took 3.25 s at 0x7f64154") == \
        "runs/RUN took T s at 0xADDR"
    assert sanitize("rank 0: 14 samples -> 4 batches") == "rank 0: 14 samples -> 4 batches"
