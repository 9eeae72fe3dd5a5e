# A tiny data-parallel training run for tests/integration/test_ml_jobs.c: linear regression on a fixed,
# seeded dataset, each rank fitting its own shard with DistributedDataParallel over gloo. The wiring is
# torch.distributed's env:// (MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK), as Caldera's pytorch plugin or
# torchrun sets it. Every rank prints the loss of the whole dataset after training: DDP keeps the
# replicas equal, so every rank prints the same number.
import os
import sys
import time

started = time.monotonic()
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

import_seconds = time.monotonic() - started
STEPS = 40
SAMPLES = 256
FEATURES = 8


def dataset():
    gen = torch.Generator().manual_seed(1234)
    x = torch.randn(SAMPLES, FEATURES, generator=gen)
    true_w = torch.arange(1, FEATURES + 1, dtype=torch.float32).unsqueeze(1) / FEATURES
    y = x @ true_w + 0.5 + 0.01 * torch.randn(SAMPLES, 1, generator=gen)
    return x, y


def main():
    rank = int(os.environ["RANK"])
    world = int(os.environ["WORLD_SIZE"])
    print(f"rank {rank} of {world}: torch {torch.__version__} imported in {import_seconds:.2f} s, "
          f"master {os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']}", flush=True)
    dist.init_process_group("gloo", init_method="env://", timeout=__import__("datetime").timedelta(seconds=60))
    torch.manual_seed(0)  # the same initial weights on every rank (DDP broadcasts rank 0's anyway)
    torch.set_num_threads(1)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(FEATURES, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = dataset()
    shard_x, shard_y = x[rank::world], y[rank::world]
    first = None
    for _ in range(STEPS):
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(shard_x), shard_y)
        loss.backward()  # DDP all-reduces (averages) the gradients across ranks here
        optimizer.step()
        first = loss.item() if first is None else first
    with torch.no_grad():
        final = torch.nn.functional.mse_loss(model.module(x), y)
    dist.barrier()
    print(f"rank {rank} first loss: {first:.8f}", flush=True)
    print(f"rank {rank} final loss: {final.item():.8f}", flush=True)
    print(f"rank {rank} seconds: {time.monotonic() - started:.2f}", flush=True)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
