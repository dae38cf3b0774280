"""StepClock: host milliseconds on CPU; on a GPU, CUDA events read after a synchronize (faked here)."""
import pytest
import torch

from ddp_lessons import scripts, timing
from ddp_lessons.diffs import written_script
from helpers import NOTEBOOKS

LESSON_6 = NOTEBOOKS / "06_gradient_sync.ipynb"


class FakeGPU:
    """torch.cuda.Event and synchronize for a GPU whose queued work runs `lag_ms` after the host
    queues it: each event's device time is the host's time of recording plus the lag so far."""

    def __init__(self, monkeypatch, lag_per_event_ms=2.0):
        self.synchronized, self.recorded, gpu = 0, 0, self

        class Event:
            def __init__(self, enable_timing=False):
                assert enable_timing, "events read with elapsed_time need enable_timing=True"
                self.device_ms = None

            def record(self, stream=None):
                gpu.recorded += 1
                self.device_ms = gpu.recorded * lag_per_event_ms

            def elapsed_time(self, end):
                assert gpu.synchronized, "read an event only after torch.cuda.synchronize()"
                return end.device_ms - self.device_ms

        monkeypatch.setattr(torch.cuda, "Event", Event)
        monkeypatch.setattr(torch.cuda, "synchronize", lambda device=None: self._sync())

    def _sync(self):
        self.synchronized += 1


def test_cpu_clock_gives_host_milliseconds_since_start():
    clock = timing.StepClock("cpu")
    clock.start()
    first, second = clock.stamp(), clock.stamp()
    assert 0 <= first <= second < 1e3 and clock.kind == "host clock"
    record = {"a": first, "b": [second]}
    assert clock.resolve(record) is record


def test_gpu_clock_reads_cuda_events_after_a_synchronize(monkeypatch):
    gpu = FakeGPU(monkeypatch)
    clock = timing.StepClock(torch.device("cuda", 1))
    clock.start()
    record = {"layers": {"linear1": {"start": clock.stamp(), "end": clock.stamp()}},
              "buckets": [{"index": 0, "start": clock.stamp(), "end": clock.stamp(), "bytes": 4}],
              "step_end": clock.stamp(), "clock": clock.kind}
    assert gpu.synchronized == 0  # stamping never waits for the GPU
    resolved = clock.resolve(record)
    assert gpu.synchronized == 1
    assert resolved == {"layers": {"linear1": {"start": 2.0, "end": 4.0}},
                        "buckets": [{"index": 0, "start": 6.0, "end": 8.0, "bytes": 4}],
                        "step_end": 10.0, "clock": "CUDA events, device time"}


def lesson_6_script(tmp_path):
    """Lesson 6's training script, as its %%writefile cell writes it, imported as a module."""
    path = tmp_path / "grad_sync.py"
    path.write_text(written_script(LESSON_6, "scripts/06_grad_sync.py"))
    return scripts.load_module(path, "grad_sync")


@pytest.mark.parametrize("device", ["cpu", "cuda:0"])
def test_lesson_6_step_record_is_in_milliseconds_on_cpu_and_gpu(monkeypatch, tmp_path, group_of_one,
                                                                device):
    """The lesson's own timed_step, with its clock on a (fake) GPU: every time is a number, in order."""
    if device.startswith("cuda"):
        FakeGPU(monkeypatch)
    script = lesson_6_script(tmp_path)
    model = script.DDP(script.make_model(), bucket_cap_mb=1)
    watch = script.bucket_watch.BucketWatch(model.module, timing.StepClock(device))
    model.register_comm_hook(watch, script.bucket_watch.recording_allreduce)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(8, script.WIDTH), torch.randint(script.CLASSES, (8,))
    steps = [script.timed_step(model, optimizer, x, y, watch) for _ in range(2)]
    step = steps[1]
    assert step["clock"] == timing.StepClock(device).kind
    assert len(step["buckets"]) == 8 and len(step["layers"]) == 9
    times = [step["backward_end"], step["step_end"]] + [t for b in step["buckets"] for t in (b["start"], b["end"])] \
        + [t for span in step["layers"].values() for t in span.values()]
    assert all(isinstance(t, float) for t in times)
    assert all(b["start"] <= b["end"] <= step["backward_end"] <= step["step_end"] for b in step["buckets"])
    # gloo's queue and run are measured with the host clock only: not mixed with CUDA event times
    assert all(("run_start" in b) == (device == "cpu") for b in step["buckets"])
