"""Scripts the course runs under torchrun by path; `bench_train` is also imported (lesson 9's runner)."""
