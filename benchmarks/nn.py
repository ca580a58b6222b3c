#!/usr/bin/env python3
"""torch.nn training loops, against PyTorch when it is installed.

Usage:  python benchmarks/nn.py [--torch PYTHON]
(a) LeNet-5 from the 60-minute blitz trained 20 SGD steps on one random batch of 64 images of
    1x32x32;
(b) a 1-layer LSTM of hidden size 128 over a sequence of 50 steps of a batch of 32, trained 5
    steps (a linear head on the last output, MSE loss, SGD).
Each workload is one program run by `gradcalc`, and the same program run under PyTorch with
the Python given by --torch; times exclude start-up (an empty program's time is subtracted).
"""
from __future__ import annotations

from engine import run_workload, workload_parser

LENET = """\
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)

net = Net()
optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
criterion = nn.CrossEntropyLoss()
images = torch.randn(64, 1, 32, 32)
labels = torch.randint(0, 10, (64,))
for step in range(20):
    optimizer.zero_grad()
    loss = criterion(net(images), labels)
    loss.backward()
    optimizer.step()
print(round(loss.item(), 3))
"""
LSTM = """\
import torch
import torch.nn as nn
torch.manual_seed(0)
lstm = nn.LSTM(16, 128)
head = nn.Linear(128, 1)
optimizer = torch.optim.SGD(list(lstm.parameters()) + list(head.parameters()), lr=0.01)
x = torch.randn(50, 32, 16)
y = torch.randn(32, 1)
for step in range(5):
    optimizer.zero_grad()
    out, _ = lstm(x)
    loss = ((head(out[-1]) - y) ** 2).mean()
    loss.backward()
    optimizer.step()
print(round(loss.item(), 3))
"""


def main() -> None:
    args = workload_parser(__doc__).parse_args()
    run_workload("(a) LeNet-5, 20 steps of batch 64", LENET, args.gradcalc, args.torch)
    run_workload("(b) LSTM 128, 50 steps of batch 32, 5 updates", LSTM, args.gradcalc, args.torch)


if __name__ == "__main__":
    main()
