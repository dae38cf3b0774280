"""Each rank records what backend.choose() decides on a node with the GPUs the launcher let it see
(tests only: on a CPU machine a node "has" as many GPUs as its CUDA_VISIBLE_DEVICES names)."""
import os

from ddp_lessons import backend, records

visible = [gpu for gpu in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",") if gpu]
choice = backend.choose(gpus=len(visible))
records.write("choice", {"backend": choice.backend, "device": str(choice.device),
                         "threads": choice.threads, "reason": choice.reason, "visible": visible,
                         "local_world_size": int(os.environ["LOCAL_WORLD_SIZE"])})
print(choice.describe())
