"""Each rank records what backend.choose() decides when the node had FAKE_GPUS GPUs (tests only)."""
import os

from ddp_lessons import backend, records

choice = backend.choose(gpus=int(os.environ["FAKE_GPUS"]))
records.write("choice", {"backend": choice.backend, "device": str(choice.device),
                         "threads": choice.threads, "reason": choice.reason,
                         "local_world_size": int(os.environ["LOCAL_WORLD_SIZE"])})
print(choice.describe())
