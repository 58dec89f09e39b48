"""The values every test world's ranks hold, chosen so that a grafted tensor
tells where it came from: a baseline rank r holds arange + 1000 + 100 r, a
target rank r arange + 2000 + 100 r, each call c 10 c more. Imports no graft:
a world whose ranks run another grafter uses them too."""

import torch

CALLS = 3
NUMEL = 8


def own_value(role, rank, call=0):
    base = 1000 if role == "baseline" else 2000
    return torch.arange(NUMEL, dtype=torch.float32) + base + 100 * rank + 10 * call
