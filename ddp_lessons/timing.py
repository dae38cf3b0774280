"""Timestamps inside a training step that mean the same on CPU and on GPUs (taught in lesson 6).

On CPU, work runs when Python calls it, so the host clock says when it happened. On a CUDA device
the host only *queues* kernels and collectives: a host time says when work was queued, and an
nccl all-reduce's future completes as soon as it is queued, so it would look instantaneous while
its real time lands in whatever the host clock measures next. There `StepClock.stamp()` records a
CUDA event on the current stream instead, and `StepClock.resolve(record)`, after
``torch.cuda.synchronize``, turns every event into milliseconds since the step's start event.
"""

from __future__ import annotations

import time
from typing import Any

import torch


class StepClock:
    """Milliseconds since `start()`: host time on CPU, CUDA events (device time) on a GPU."""

    def __init__(self, device: torch.device | str):
        self.device = torch.device(device)
        self.on_gpu = self.device.type == "cuda"
        self.kind = "CUDA events, device time" if self.on_gpu else "host clock"
        self._start: Any = None

    def _now(self) -> Any:
        if self.on_gpu:
            event = torch.cuda.Event(enable_timing=True)
            event.record()  # on the current stream: passes when the work queued before it is done
            return event
        return time.perf_counter()

    def start(self) -> None:
        """Mark time zero (call it right before ``loss.backward()``)."""
        self._start = self._now()

    def stamp(self) -> Any:
        """Now: milliseconds since `start` on CPU; on a GPU an event that `resolve` converts."""
        now = self._now()
        return now if self.on_gpu else 1e3 * (now - self._start)

    def resolve(self, record: Any) -> Any:
        """`record` (dicts, lists, stamps) with every CUDA event replaced by its ms since `start`."""
        if not self.on_gpu:
            return record
        torch.cuda.synchronize(self.device)  # every event recorded so far has now happened
        return self._resolve(record)

    def _resolve(self, value: Any) -> Any:
        if isinstance(value, dict):
            return {key: self._resolve(item) for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(self._resolve(item) for item in value)
        if isinstance(value, torch.cuda.Event):
            return self._start.elapsed_time(value)
        return value
