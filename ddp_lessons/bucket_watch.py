"""What DDP does inside one backward pass, recorded by hooks, without changing it (taught in lesson 6).

A training script wraps its model in DDP as usual, then::

    watch = bucket_watch.BucketWatch(model.module, clock)             # per-layer hooks
    model.register_comm_hook(watch, bucket_watch.recording_allreduce)  # DDP calls it per bucket
    with watch.backward():                                            # time zero
        loss.backward()
    optimizer.step()
    record = watch.step_record()                                      # lesson 6's step record

`recording_allreduce` does what DDP does by default (divide the bucket's gradients by the world size,
all-reduce with SUM: the average) and logs the bucket's index, bytes, layers, launch (``start``) and
completion (``end``). With gloo on CPU an all-reduce launched by DDP is *queued* for one of the
process group's worker threads (2 by default) and runs when one is free; torch's profiler marks that
moment (its ``gloo:all_reduce`` event opens), so each bucket also gets ``run_start``. (The event
closes only after the hook's completion callback, which waits for Python's GIL, has returned, so
``end`` stays the completion time.) On GPUs the times are CUDA events (`timing.StepClock`) and
queueing is not measured. The record's fields are
described in `ddp_lessons.plots.timeline`.
"""

import os
from contextlib import contextmanager
from typing import Any, Iterator

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile, record_function

from ddp_lessons import timing

RUN_EVENT = "gloo:all_reduce"
"""The profiler event a gloo worker thread opens when it starts running an all-reduce."""
_MARK = "ddp_lessons.bucket_watch.start"


class BucketWatch:
    """Hooks on every `nn.Linear` of `module` and a per-step log of its layers and DDP buckets."""

    def __init__(self, module: nn.Module, clock: timing.StepClock):
        self.clock = clock
        self.layers: dict[str, dict[str, Any]] = {}
        self.buckets: list[dict[str, Any]] = []
        self.layer_of: dict[nn.Parameter, str] = {}
        self._profiler: profile | None = None
        self._backward_end: Any = None
        self._in_backward = 0
        for i, layer in enumerate(m for m in module.modules() if isinstance(m, nn.Linear)):
            name = f"linear{i}"
            layer.register_forward_hook(self._watch_output(name))
            for param in layer.parameters():
                self.layer_of[param] = name
                param.register_post_accumulate_grad_hook(lambda p, name=name: self._layer_done(name))

    def _watch_output(self, name: str):
        """A forward hook: when the output's gradient arrives in backward, the layer's backward starts."""
        def hook(module, inputs, output):
            if output.requires_grad:
                output.register_hook(lambda grad: self.layers.update({name: {"start": self.clock.stamp()}}))
        return hook

    def _layer_done(self, name: str) -> None:
        self.layers.setdefault(name, {})["end"] = self.clock.stamp()  # the layer's .grad is written

    def reset(self) -> None:
        """Forget what was logged (e.g. before counting the all-reduces of a few backward passes)."""
        self.layers, self.buckets = {}, []

    @contextmanager
    def backward(self) -> Iterator[None]:
        """Wrap ``loss.backward()``: time zero is its start; gloo runs are profiled until `step_record`."""
        self.reset()
        self._profiler = _profiler_for(self.clock)
        if self._profiler is None:
            self.clock.start()
        else:
            self._profiler.start()
            with record_function(_MARK):
                self.clock.start()
        try:
            yield
        except BaseException:
            if self._profiler is not None:  # no profiler left running after a failed backward
                self._profiler.stop()
                self._profiler = None
            raise
        self._backward_end = self.clock.stamp()
        self._in_backward = len(self.buckets)

    def step_record(self, **extra: Any) -> dict[str, Any]:
        """The step's record, in ms since backward started; call it after ``optimizer.step()``."""
        record = {"backward_end": self._backward_end, "step_end": self.clock.stamp(),
                  "allreduces_in_backward": self._in_backward,
                  "allreduces_in_step": len(self.buckets) - self._in_backward,
                  "layers": {name: dict(span) for name, span in self.layers.items()},
                  "buckets": [dict(bucket) for bucket in self.buckets], "clock": self.clock.kind, **extra}
        if self._profiler is not None:
            self._profiler.stop()
            add_run_times(record["buckets"], _run_starts(self._profiler))
            self._profiler = None
        return self.clock.resolve(record)  # on GPUs: synchronize, then every CUDA event as ms


def recording_allreduce(watch: BucketWatch, bucket: dist.GradBucket) -> torch.futures.Future[torch.Tensor]:
    """DDP's default comm hook (divide by the world size, all-reduce SUM), logging the bucket in `watch`."""
    grads = bucket.buffer()  # the bucket's gradients, flattened into one tensor
    entry = {"index": bucket.index(), "bytes": grads.numel() * grads.element_size(),
             "start": watch.clock.stamp(), "layers_started": len(watch.layers),
             "layers": list(dict.fromkeys(watch.layer_of[p] for p in bucket.parameters()))}
    watch.buckets.append(entry)
    grads.div_(dist.get_world_size())

    def done(fut: torch.futures.Future) -> torch.Tensor:
        entry["end"] = watch.clock.stamp()
        return fut.value()[0]

    return dist.all_reduce(grads, async_op=True).get_future().then(done)


def add_run_times(buckets: list[dict[str, Any]], run_starts: list[float]) -> bool:
    """Give each bucket the ``run_start`` at its position in launch order; False if counts differ.

    gloo's workers take all-reduces from a first-in first-out queue, so the k-th run to start is the
    k-th bucket launched.
    """
    if len(run_starts) != len(buckets):
        return False
    for bucket, start in zip(sorted(buckets, key=lambda b: b["start"]), sorted(run_starts)):
        bucket["run_start"] = start
    return True


def _profiler_for(clock: timing.StepClock) -> profile | None:
    """A CPU profiler when the all-reduces run on gloo's worker threads and the clock is the host's."""
    if clock.on_gpu or not dist.is_initialized() or dist.get_backend() != "gloo":
        return None
    os.environ.setdefault("KINETO_LOG_LEVEL", "6")  # no "profiler_start/stop" lines in the rank's output
    return profile(activities=[ProfilerActivity.CPU])


def _run_starts(profiler: profile) -> list[float]:
    """When, in ms since the clock's start, a gloo worker began running each all-reduce."""
    events = profiler.events()
    zero = next(e.time_range.start for e in events if e.name == _MARK)
    return sorted((e.time_range.start - zero) / 1e3 for e in events if e.name == RUN_EVENT)
