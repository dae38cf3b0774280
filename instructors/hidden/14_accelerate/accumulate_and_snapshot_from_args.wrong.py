# Wrong answer: the accumulation steps written as 2, the script's default, instead of args.accumulate
# after: def make_accelerator(
# visible check lets it pass because: it launches the port with --accumulate 2
use_gpus = torch.cuda.device_count() >= int(os.environ.get("LOCAL_WORLD_SIZE", 1))
return Accelerator(cpu=not use_gpus, gradient_accumulation_steps=2,
                   dataloader_config=DataLoaderConfiguration(use_seedable_sampler=True),
                   project_config=ProjectConfiguration(project_dir=args.snapshot,
                                                       automatic_checkpoint_naming=True, total_limit=2))
