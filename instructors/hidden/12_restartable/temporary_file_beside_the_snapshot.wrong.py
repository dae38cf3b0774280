# Wrong answer: the temporary file made by tempfile.mkstemp() (in /tmp, the default) and renamed onto the snapshot
# after: def save_snapshot(
# visible check lets it pass because: its run folder and /tmp are on one file system on the machine that runs
# it, where a rename from /tmp is atomic; on a cluster node /tmp is local and the snapshot on shared storage,
# and os.replace fails there with "Invalid cross-device link"
import tempfile

if dist.get_rank() == 0:
    snapshot = {"model": ddp_model.module.state_dict(), "optimizer": optimizer.state_dict(),
                "epoch": epoch, "step": step}
    handle, tmp = tempfile.mkstemp(suffix=".pt")
    os.close(handle)
    torch.save(snapshot, tmp)
    os.replace(tmp, path)
dist.barrier()
