# pytorch/examples time_sequence_prediction (generate_sine_wave.py and train.py): two LSTMCells and
# a Linear in float64, trained by LBFGS with a closure, then predicting 20 steps ahead.
# Shortened: 12 waves of 100 points (the original: 100 of 1000), 1 step (the original: 15).
import time
import torch
import torch.nn as nn
import torch.optim as optim

started = time.process_time()
T, L, N = 20, 100, 12
_ = torch.manual_seed(2)  # gradcalc echoes a top-level expression's value, as a REPL does
x = torch.arange(L).reshape(1, L) + torch.randint(-4 * T, 4 * T, (N, 1))
data = torch.sin(x / 1.0 / T).double()


class Sequence(nn.Module):
    def __init__(self):
        super(Sequence, self).__init__()
        self.lstm1 = nn.LSTMCell(1, 51)
        self.lstm2 = nn.LSTMCell(51, 51)
        self.linear = nn.Linear(51, 1)

    def forward(self, input, future=0):
        outputs = []
        h_t = torch.zeros(input.size(0), 51, dtype=torch.double)
        c_t = torch.zeros(input.size(0), 51, dtype=torch.double)
        h_t2 = torch.zeros(input.size(0), 51, dtype=torch.double)
        c_t2 = torch.zeros(input.size(0), 51, dtype=torch.double)
        for input_t in input.split(1, dim=1):
            h_t, c_t = self.lstm1(input_t, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        for i in range(future):  # if we should predict the future
            h_t, c_t = self.lstm1(output, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        outputs = torch.cat(outputs, dim=1)
        return outputs


input = data[3:, :-1]
target = data[3:, 1:]
test_input = data[:3, :-1]
test_target = data[:3, 1:]
seq = Sequence()
_ = seq.double()
criterion = nn.MSELoss()
optimizer = optim.LBFGS(seq.parameters(), lr=0.8)
for i in range(1):
    print('STEP: ', i)

    def closure():
        optimizer.zero_grad()
        out = seq(input)
        loss = criterion(out, target)
        print('loss:', loss.item())
        loss.backward()
        return loss
    _ = optimizer.step(closure)  # assigned: gradcalc would echo the loss at top level
    with torch.no_grad():
        future = 20
        pred = seq(test_input, future=future)
        loss = criterion(pred[:, :-future], test_target)
        print('test loss:', loss.item())
print("seconds", time.process_time() - started)
