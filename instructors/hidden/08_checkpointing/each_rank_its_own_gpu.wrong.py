# Wrong answer: loads onto cuda:RANK (the global rank) when there are GPUs, onto the CPU otherwise
# after: def load_checkpoint(
# visible check lets it pass because: it runs on 2 ranks of one CPU machine, where this asks for "cpu", the
# ranks' own device; on a second GPU node, rank 5 would ask for cuda:5
place = f"cuda:{dist.get_rank()}" if torch.cuda.is_available() else "cpu"
state = torch.load(path, map_location=place, weights_only=True)
model.load_state_dict(state)
