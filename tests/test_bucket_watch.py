"""BucketWatch records each layer's backward and each DDP bucket's launch, run and completion."""
import pytest
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

from ddp_lessons import bucket_watch, timing


def watched_model(cap_mb, layers=4, width=512):
    """A DDP MLP of `layers` Linear(width, width) (1 MiB of gradients each at 512) with a watch."""
    torch.manual_seed(0)
    model = DDP(nn.Sequential(*[m for _ in range(layers) for m in (nn.Linear(width, width), nn.ReLU())]),
                bucket_cap_mb=cap_mb)
    watch = bucket_watch.BucketWatch(model.module, timing.StepClock("cpu"))
    model.register_comm_hook(watch, bucket_watch.recording_allreduce)
    return model, watch


def train_steps(model, watch, steps=2):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(16, 512)
    records = []
    for _ in range(steps):
        loss = model(x).square().mean()
        with watch.backward():
            loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        records.append(watch.step_record(note="extra"))
    return records


def test_one_bucket_per_1_mib_layer_after_the_first_step(group_of_one):
    model, watch = watched_model(cap_mb=1)
    first, second = train_steps(model, watch)
    assert len(first["buckets"]) == 1  # before DDP has seen the order gradients become ready
    assert [b["layers"] for b in second["buckets"]] == [["linear3"], ["linear2"], ["linear1"], ["linear0"]]
    assert [b["layers_started"] for b in second["buckets"]] == [1, 2, 3, 4]
    assert sorted(second["layers"]) == ["linear0", "linear1", "linear2", "linear3"]
    assert all(span["start"] <= span["end"] for span in second["layers"].values())
    assert second["allreduces_in_backward"] == 4 and second["allreduces_in_step"] == 0
    assert second["note"] == "extra" and second["clock"] == "host clock"
    assert {b["bytes"] for b in second["buckets"]} == {(512 * 512 + 512) * 4}


def test_gloo_runs_each_all_reduce_between_its_launch_and_its_completion(group_of_one):
    model, watch = watched_model(cap_mb=1)
    step = train_steps(model, watch)[1]
    slack = 0.5  # ms: the profiler's clock and the host clock are read a few microseconds apart
    for bucket in step["buckets"]:
        assert bucket["start"] - slack <= bucket["run_start"] <= bucket["end"] + slack
    assert all(b["end"] <= step["backward_end"] <= step["step_end"] for b in step["buckets"])


def test_the_watch_counts_the_all_reduces_no_sync_skips(group_of_one):
    model, watch = watched_model(cap_mb=25)
    train_steps(model, watch, steps=1)
    watch.reset()
    x = torch.randn(16, 512)
    with model.no_sync():
        model(x).sum().backward()
    assert watch.buckets == []
    model(x).sum().backward()
    assert len(watch.buckets) == 1


def test_run_times_go_to_buckets_in_launch_order_and_only_when_counts_match():
    buckets = [{"start": 2.0}, {"start": 1.0}]
    assert bucket_watch.add_run_times(buckets, [5.0, 1.5])
    assert buckets == [{"start": 2.0, "run_start": 5.0}, {"start": 1.0, "run_start": 1.5}]
    other = [{"start": 1.0}]
    assert not bucket_watch.add_run_times(other, []) and other == [{"start": 1.0}]


def test_a_failing_backward_leaves_no_profiler_running(group_of_one):
    model, watch = watched_model(cap_mb=25)
    with pytest.raises(RuntimeError, match="boom"):
        with watch.backward():
            raise RuntimeError("boom")
    assert torch.autograd.profiler._is_profiler_enabled is False
    train_steps(model, watch, steps=1)  # and the next step can profile again
