"""Record what PyTorch prints for the torch.nn case programs below.

Run with a Python that has PyTorch installed (the only place torch is used), on a processor with
AVX-512 (ATen's AVX-512 kernels, numpy pinned as gradcalc pins it):

    python tests/nn_cases/record_nn_cases.py

It writes ``nn_cases.json`` next to this file: ``{"torch_version", "machine", "cases"}``, each case
``{"name", "code", "output"}`` where ``output`` is everything the program printed, as
runner.run_program captures it (echoed reprs, print output, warnings, the error that ended it).
test_nn.py runs the same code against gradcalc and compares.
"""
from __future__ import annotations

import json
import re
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from runner import run_program  # noqa: E402

OUT = Path(__file__).with_name("nn_cases.json")

# Describes a grad_fn chain: each node's name, then its inputs indented under it.
GRAPH_HELPER = '''
def graph(fn, depth=0):
    if fn is None:
        print("  " * depth + "None")
        return
    print("  " * depth + fn.name())
    for child, nr in fn.next_functions:
        graph(child, depth + 1)
'''

CASES: dict[str, str] = {
    # ------------------------------------------------------------ nn.Linear
    "linear_repr_and_init": """
torch.manual_seed(0)
lin = nn.Linear(3, 2)
lin
lin.weight
lin.bias
lin.weight.shape, lin.bias.shape
lin.in_features, lin.out_features
nn.Linear(4, 3, bias=False)
nn.Linear(in_features=2, out_features=4).weight
nn.Linear(2, 3, dtype=torch.float64).bias
torch.rand(2)
""",
    "linear_init_larger": """
torch.manual_seed(42)
nn.Linear(5, 4).weight
nn.Linear(5, 4).bias
torch.manual_seed(3)
nn.Linear(1, 1).weight, nn.Linear(7, 1).bias
""",
    "linear_zero_features": """
torch.manual_seed(0)
lin = nn.Linear(0, 3)
lin.weight.shape
lin.bias
lin2 = nn.Linear(3, 0)
lin2.bias
torch.rand(1)
""",
    "linear_constructor_errors_float": "nn.Linear(2.0, 3)",
    "linear_constructor_errors_negative": "nn.Linear(-1, 3)",
    "linear_constructor_errors_missing": "nn.Linear(2)",
    "linear_constructor_errors_int_dtype": "nn.Linear(2, 3, dtype=torch.int64)",
    "linear_constructor_cuda": "nn.Linear(2, 3, device='cuda')",
    "linear_forward_2d": GRAPH_HELPER + """
torch.manual_seed(0)
lin = nn.Linear(3, 2)
x = torch.tensor([[1., 2., 3.], [-1., 0.5, 2.]])
y = lin(x)
y
graph(y.grad_fn)
y.sum().backward()
lin.weight.grad
lin.bias.grad
x.requires_grad_()
z = lin(x)
graph(z.grad_fn)
(z * z).sum().backward()
x.grad
lin.weight.grad
""",
    "linear_forward_1d": GRAPH_HELPER + """
torch.manual_seed(0)
lin = nn.Linear(3, 2)
x = torch.tensor([1., 2., 3.], requires_grad=True)
y = lin(x)
y
graph(y.grad_fn)
y.sum().backward()
x.grad, lin.weight.grad, lin.bias.grad
nolin = nn.Linear(3, 2, bias=False)
z = nolin(x)
z
graph(z.grad_fn)
z.sum().backward()
x.grad
graph(nolin(torch.ones(3)).grad_fn)
""",
    "linear_forward_nd": GRAPH_HELPER + """
torch.manual_seed(0)
lin = nn.Linear(3, 2)
x = torch.arange(24.).reshape(2, 4, 3).requires_grad_()
y = lin(x)
y.shape
graph(y.grad_fn)
y.sum().backward()
x.grad[0]
lin.bias.grad
nolin = nn.Linear(3, 2, bias=False)
z = nolin(x)
graph(z.grad_fn)
graph(lin(torch.ones(2, 1, 4, 3)).grad_fn)
graph(nolin(torch.ones(2, 1, 4, 3)).grad_fn)
""",
    "linear_forward_noncontiguous": GRAPH_HELPER + """
torch.manual_seed(0)
lin = nn.Linear(3, 2)
x = torch.ones(3, 4, requires_grad=True).t()
graph(lin(x).grad_fn)
x3 = torch.ones(2, 3, 4, requires_grad=True).transpose(1, 2)
y = lin(x3)
y.shape
graph(y.grad_fn)
y.sum().backward()
x3.grad is None
lin.bias.grad
""",
    "linear_forward_empty_batch": GRAPH_HELPER + """
torch.manual_seed(0)
lin = nn.Linear(3, 2)
y = lin(torch.ones(0, 3))
y
graph(y.grad_fn)
""",
    "linear_shape_error_2d": "torch.manual_seed(0)\nlin = nn.Linear(3, 2)\nlin(torch.tensor([[1., 2.]]))",
    "linear_shape_error_1d": "lin = nn.Linear(3, 2)\nlin(torch.ones(2))",
    "linear_shape_error_1d_nobias": "lin = nn.Linear(3, 2, bias=False)\nlin(torch.ones(4))",
    "linear_shape_error_3d": "lin = nn.Linear(3, 2)\nlin(torch.ones(2, 4, 2))",
    "linear_shape_error_3d_nobias": "lin = nn.Linear(3, 2, bias=False)\nlin(torch.ones(2, 4, 2))",
    "linear_shape_error_2d_nobias": "lin = nn.Linear(3, 2, bias=False)\nlin(torch.ones(5, 2))",
    "linear_scalar_input": "lin = nn.Linear(3, 2)\nlin(torch.tensor(1.))",
    "linear_dtype_error": "lin = nn.Linear(3, 2)\nlin(torch.ones(2, 3, dtype=torch.float64))",
    "linear_dtype_error_1d": "lin = nn.Linear(3, 2)\nlin(torch.ones(3, dtype=torch.float64))",
    "linear_dtype_error_long": "lin = nn.Linear(3, 2)\nlin(torch.ones(2, 3, dtype=torch.int64))",
    "linear_dtype_error_nobias": "lin = nn.Linear(3, 2, bias=False)\nlin(torch.ones(2, 3, dtype=torch.float64))",
    "linear_dtype_and_shape_error": "lin = nn.Linear(3, 2)\nlin(torch.ones(2, 2, dtype=torch.float64))",
    "linear_list_input": "lin = nn.Linear(3, 2)\nlin([1., 2., 3.])",
    "linear_no_input": "lin = nn.Linear(3, 2)\nlin()",
    "linear_weight_none": "lin = nn.Linear(2, 2)\nlin.weight = None\nlin.weight\nlin(torch.ones(2))",
    "linear_float64": """
torch.manual_seed(1)
lin = nn.Linear(2, 2, dtype=torch.float64)
y = lin(torch.tensor([[1., 2.]], dtype=torch.float64))
y
y.sum().backward()
lin.weight.grad
""",
    "linear_set_weights": """
g = torch.manual_seed(0)
lin = nn.Linear(2, 2, bias=False)
lin
lin.bias is None
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[1., 2.], [3., 4.]]))
lin(torch.tensor([1., 1.]))
lin(torch.tensor([[1., 0.], [0., 1.]])).sum().backward()
lin.weight.grad
lin.weight._version
""",
    "linear_reset_parameters": """
torch.manual_seed(0)
lin = nn.Linear(2, 3)
torch.manual_seed(0)
lin.reset_parameters()
lin.weight
lin.weight._version
""",
    "functional_linear": GRAPH_HELPER + """
x = torch.tensor([[1., -2., 3.], [0.5, 0., -1.]], requires_grad=True)
w = torch.ones(2, 3)
y = F.linear(x, w)
y
graph(y.grad_fn)
z = F.linear(x, w, torch.ones(2))
z
graph(z.grad_fn)
F.linear(torch.ones(3), torch.ones(2, 3), torch.tensor([1., 2.]))
""",
    "functional_linear_bad_bias": "F.linear(torch.ones(2, 3), torch.ones(2, 3), 1)",
    "training_loop": """
torch.manual_seed(0)
model = nn.Linear(1, 1)
x = torch.tensor([[1.], [2.], [3.]])
y = torch.tensor([[2.], [4.], [6.]])
for step in range(5):
    loss = F.mse_loss(model(x), y)
    model.weight.grad = None
    model.bias.grad = None
    loss.backward()
    with torch.no_grad():
        model.weight -= 0.1 * model.weight.grad
        model.bias -= 0.1 * model.bias.grad
    print(f"step {step}: loss={loss.item():.4f}")
model.weight, model.bias
""",
    "training_loop_sequential": """
torch.manual_seed(1)
model = nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 1))
x = torch.tensor([[0., 0.], [0., 1.], [1., 0.], [1., 1.]])
y = torch.tensor([[0.], [1.], [1.], [0.]])
loss_fn = nn.MSELoss()
for step in range(20):
    model.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    with torch.no_grad():
        for p in model.parameters():
            p -= 0.5 * p.grad
    if step % 5 == 0:
        print(step, round(loss.item(), 4))
model(x)
""",
    # ------------------------------------------------------------ nn.Parameter
    "parameter_basics": """
p = nn.Parameter(torch.tensor([1., 2.]))
p
p.requires_grad, p.is_leaf, p.grad, p.grad_fn
q = nn.Parameter(torch.tensor([1., 2.]), requires_grad=False)
q
p * 2
isinstance(p, torch.Tensor), isinstance(p * 2, nn.Parameter), isinstance(p, nn.Parameter)
type(p)
type(p * 2) is torch.Tensor, type(p.detach()) is torch.Tensor, type(p.data) is torch.Tensor
(p ** 2).sum().backward()
p.grad
print(p)
f"{p}"
str(p)
nn.Parameter(torch.tensor(3.))
nn.Parameter(torch.tensor([1., 2.], dtype=torch.float64))
nn.Parameter()
nn.Parameter(torch.tensor([1, 2]), requires_grad=False)
""",
    "parameter_shares_storage": """
t = torch.tensor([1., 2.])
p = nn.Parameter(t)
t.add_(1)
p
p._version, t._version
with torch.no_grad():
    p.mul_(2)
t
x = torch.tensor([1., 2.], requires_grad=True) * 2
pp = nn.Parameter(x)
pp, pp.is_leaf, pp.grad_fn
p.requires_grad_(False)
""",
    "parameter_int_data": "nn.Parameter(torch.tensor([1, 2]))",
    "parameter_list_data": "nn.Parameter([1., 2.])",
    "parameter_float_data": "nn.Parameter(3.)",
    "parameter_requires_grad_not_bool": "nn.Parameter(torch.ones(2), requires_grad=None)",
    "parameter_inplace_leaf_error": "p = nn.Parameter(torch.ones(2))\np.add_(1)",
    "parameter_in_expression": GRAPH_HELPER + """
w = nn.Parameter(torch.tensor([[1., 2.], [3., 4.]]))
x = torch.tensor([1., -1.])
y = (w @ x).sum()
y
graph(y.grad_fn)
y.backward()
w.grad
""",
    # ------------------------------------------------------------ Module
    "module_attributes": """
torch.manual_seed(0)
lin = nn.Linear(2, 2)
lin.extra = nn.Parameter(torch.ones(1))
[name for name, _ in lin.named_parameters()]
lin.sub = nn.ReLU()
lin
lin.t = torch.ones(2)
lin.t
[name for name, _ in lin.named_parameters()]
lin.n = 5
lin.n
del lin.extra
[name for name, _ in lin.named_parameters()]
lin.sub = None
lin
lin.in_features = 4
lin
lin.training
lin.training = False
lin.training
""",
    "module_assign_tensor_to_parameter": "lin = nn.Linear(2, 2)\nlin.weight = torch.ones(2, 2)",
    "module_assign_int_to_parameter": "lin = nn.Linear(2, 2)\nlin.bias = 3",
    "module_assign_tensor_to_child": "s = nn.Sequential(nn.ReLU())\ns.sub = nn.Tanh()\ns.sub = torch.ones(1)",
    "module_missing_attribute": "lin = nn.Linear(2, 2)\nlin.foo",
    "module_delete_missing": "lin = nn.Linear(2, 2)\ndel lin.foo",
    "module_base": "m = nn.Module()\nm\nm.training\nlist(m.parameters())\nm(torch.ones(1))",
    "module_generators": """
lin = nn.Linear(2, 2)
lin.parameters()
lin.named_parameters()
lin.children()
lin.modules()
lin.parameters
lin.forward
len(list(lin.parameters()))
list(lin.children())
list(lin.modules())
""",
    "module_traversal": """
torch.manual_seed(0)
s = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Sequential(nn.Linear(3, 1), nn.Sigmoid()))
s
list(s.named_parameters())
[name for name, _ in s.named_parameters()]
list(s.children())
[name for name, _ in s.named_children()]
[name for name, _ in s.named_modules()]
len(list(s.modules()))
[p.shape for p in s.parameters()]
[p.shape for p in s.parameters(recurse=False)]
s.state_dict()
s[0].state_dict()
list(s.state_dict().keys())
s.state_dict()['0.bias'].requires_grad
""",
    "module_shared_parameter": """
torch.manual_seed(0)
a = nn.Linear(2, 2)
s = nn.Sequential(a, a)
s
len(list(s.parameters()))
[name for name, _ in s.named_parameters()]
len(list(s.modules()))
""",
    "module_train_eval": """
s = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
s.training, s[0].training
s.eval()
s.training, s[0].training
s.train()
s[1].training
s.train(False).training
s.train('yes')
""",
    "module_zero_grad": """
torch.manual_seed(0)
s = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
out = s(torch.ones(1, 2))
out.sum().backward()
s[0].weight.grad
s.zero_grad()
s[0].weight.grad, s[0].bias.grad
s(torch.ones(1, 2)).sum().backward()
g = s[0].bias.grad
s.zero_grad(set_to_none=False)
s[0].bias.grad
g is s[0].bias.grad
""",
    "module_requires_grad": """
torch.manual_seed(0)
lin = nn.Linear(3, 2)
lin.requires_grad_(False) is lin
lin.weight
lin(torch.ones(3))
lin.requires_grad_()
lin(torch.ones(3))
""",
    "module_apply_and_init": """
torch.manual_seed(0)
def init_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.constant_(m.weight, 0.5)
        nn.init.zeros_(m.bias)
s = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
s.apply(init_weights) is s
s[0].weight
s[2].bias
s(torch.ones(1, 2))
""",
    "module_to_dtype": """
torch.manual_seed(0)
lin = nn.Linear(2, 1)
w = lin.weight
lin.to(torch.float64) is lin
lin.weight is w
lin.weight
lin.double().bias.dtype
lin.float().weight.dtype
lin.to('cpu') is lin
lin.cpu() is lin
lin.to(torch.int64)
""",
    "module_cuda": "nn.Linear(2, 2).cuda()",
    "module_reprs": """
nn.ReLU()
nn.ReLU(inplace=True)
nn.Sigmoid()
nn.Tanh()
nn.Identity()
nn.Identity(3, foo=4)
nn.Flatten()
nn.Flatten(0, 1)
nn.Softmax(dim=1)
nn.Softmax()
nn.LogSoftmax(dim=-1)
nn.LeakyReLU()
nn.LeakyReLU(0.2, inplace=True)
nn.MSELoss()
nn.MSELoss(reduction='sum')
nn.L1Loss(reduction='none')
nn.L1Loss().reduction
nn.Sequential()
nn.Sequential(nn.Linear(1, 1), nn.Sequential(nn.Sequential(nn.ReLU())))
print(nn.Sequential(nn.Linear(2, 1)))
[nn.ReLU(), nn.Tanh()]
""",
    "module_constructor_errors": "nn.ReLU(True, 3)",
    "module_forward_too_many": "nn.ReLU()(torch.ones(1), 2)",
    "module_forward_missing_target": "nn.MSELoss()(torch.ones(1))",
    # ------------------------------------------------------------ Sequential
    "sequential_indexing": """
torch.manual_seed(0)
s = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
s[0]
s[-1]
s[1:]
s[::2]
len(s)
[m for m in s]
s.append(nn.Sigmoid())
len(s)
s[3] = nn.Tanh()
s
del s[1]
s
s(torch.ones(2))
""",
    "sequential_index_error": "s = nn.Sequential(nn.ReLU())\ns[1]",
    "sequential_negative_index_error": "s = nn.Sequential(nn.ReLU())\ns[-2]",
    "sequential_string_index": "s = nn.Sequential(nn.ReLU())\ns['a']",
    "sequential_not_a_module": "nn.Sequential(nn.ReLU(), 3)",
    "sequential_function": "nn.Sequential(nn.ReLU(), F.relu)",
    "sequential_forward": GRAPH_HELPER + """
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2), nn.Softmax(dim=1))
x = torch.rand(5, 3)
y = model(x)
y
graph(y.grad_fn)
(y[:, 0]).sum().backward()
model[0].weight.grad
model[2].bias.grad
""",
    "sequential_flatten": """
torch.manual_seed(0)
model = nn.Sequential(nn.Flatten(), nn.Linear(4, 2), nn.LeakyReLU(0.1))
x = torch.arange(8.).reshape(2, 2, 2)
y = model(x)
y
y.sum().backward()
model[1].weight.grad
""",
    # ------------------------------------------------------------ activations
    "relu_functional": """
x = torch.tensor([-1., 0., 2.], requires_grad=True)
F.relu(x)
F.relu(x).sum().backward()
x.grad
nn.ReLU()(torch.tensor([-1., 1.]))
y = x * 1
F.relu(y, inplace=True)
y.grad_fn
y = x * 1
F.relu_(y)
y = x * 1
nn.ReLU(inplace=True)(y)
y
F.relu(torch.tensor([-1, 2]))
""",
    "relu_inplace_leaf": "x = torch.tensor([-1., 2.], requires_grad=True)\nF.relu(x, inplace=True)",
    "relu_list": "F.relu([1., -1.])",
    "leaky_relu": GRAPH_HELPER + """
x = torch.tensor([[1., -2., 3.], [0.5, 0., -1.]], requires_grad=True)
F.leaky_relu(x)
F.leaky_relu(x, 0.2)
y = nn.LeakyReLU(0.1)(x)
y
graph(y.grad_fn)
y.sum().backward()
x.grad
x.grad = None
z = x * 1
F.leaky_relu(z, 0.1, inplace=True)
z.grad_fn
(z * z).sum().backward()
x.grad
F.leaky_relu(torch.tensor([-1., 2.], dtype=torch.float64), 0.5)
""",
    "leaky_relu_long": "F.leaky_relu(torch.tensor([-1, 2]), 0.1)",
    "sigmoid_tanh": """
x = torch.tensor([[1., -2., 3.], [0.5, 0., -1.]], requires_grad=True)
F.sigmoid(x)
F.tanh(x)
nn.Sigmoid()(x)
nn.Tanh()(x).sum().backward()
x.grad
x.grad = None
nn.Sigmoid()(x).sum().backward()
x.grad
""",
    "identity_flatten": GRAPH_HELPER + """
x = torch.tensor([[1., -2., 3.], [0.5, 0., -1.]], requires_grad=True)
nn.Identity()(x) is x
nn.Flatten()(x)
nn.Flatten(0)(x)
y = nn.Flatten()(torch.ones(2, 3, 4, requires_grad=True))
y.shape
graph(y.grad_fn)
nn.Flatten(0, -1)(torch.ones(2, 3)).shape
""",
    "softmax_basics": GRAPH_HELPER + """
x = torch.tensor([[1., -2., 3.], [0.5, 0., -1.]], requires_grad=True)
F.softmax(x, dim=1)
F.softmax(x, 0)
F.log_softmax(x, dim=1)
F.log_softmax(x, dim=0)
y = F.softmax(x, dim=1)
graph(y.grad_fn)
y.sum().backward()
x.grad
x.grad = None
F.log_softmax(x, dim=1).sum().backward()
x.grad
x.grad = None
(F.softmax(x, dim=1) * torch.tensor([1., 2., 3.])).sum().backward()
x.grad
x.grad = None
(F.log_softmax(x, dim=0) * torch.tensor([1., 2., 3.])).sum().backward()
x.grad
x.grad = None
(F.softmax(x, dim=0) * torch.tensor([1., 2., 3.])).sum().backward()
x.grad
nn.Softmax(dim=1)(x)
nn.LogSoftmax(dim=-1)(x)
""",
    "softmax_implicit_dim": """
x = torch.tensor([[1., -2., 3.], [0.5, 0., -1.]])
F.softmax(x)
nn.Softmax()(x)
F.log_softmax(torch.tensor([1., 2.]))
nn.Softmax()(torch.ones(2, 2, 2))
""",
    "softmax_shapes": """
torch.manual_seed(0)
F.softmax(torch.tensor(1.), dim=0)
F.log_softmax(torch.tensor(3.), dim=-1)
F.softmax(torch.zeros(0, 3), dim=1)
x = torch.randn(2, 3, 4)
F.softmax(x, dim=1)
F.log_softmax(x, dim=2)
F.softmax(x, dim=-1).sum(-1)
F.softmax(torch.tensor([1., 2.]), dim=0, dtype=torch.float64)
F.softmax(torch.tensor([1, 2]), dim=0, dtype=torch.float64)
""",
    "softmax_dim_error": "x = torch.ones(2, 3)\nF.softmax(x, dim=2)",
    "softmax_long": "F.softmax(torch.tensor([1, 2]), dim=0)",
    "softmax_long_not_last": "F.softmax(torch.tensor([[1, 2]]), dim=0)",
    "log_softmax_long": "F.log_softmax(torch.tensor([1, 2]), dim=0)",
    "softmax_large": """
torch.manual_seed(5)
x = (torch.randn(3, 40) * 4).requires_grad_()
y = F.softmax(x, dim=1)
y.sum(1)
y[:, :6]
g = torch.randn(3, 40)
y.backward(g)
x.grad[:, :6]
x.grad = None
z = F.log_softmax(x, dim=1)
z[:, :6]
z.backward(g)
x.grad[:, :6]
x.grad = None
w = F.softmax(x, dim=0)
w[:, :6]
w.backward(g)
x.grad[:, :6]
""",
    "softmax_exact_bits": """
torch.manual_seed(7)
for shape, dim in [((2, 3), 1), ((2, 3), 0), ((4, 10), 1), ((10,), 0), ((4, 10), 0), ((3, 17), -1),
                   ((2, 5, 3), 1), ((2, 2, 20), 2), ((40, 2), 0)]:
    x = (torch.randn(shape) * 3).requires_grad_()
    g = torch.randn(shape)
    for name, fn in (("softmax", F.softmax), ("log_softmax", F.log_softmax)):
        y = fn(x, dim=dim)
        y.backward(g)
        print(shape, dim, name, y.tolist(), x.grad.tolist())
        x.grad = None
    y = F.softmax(x, dim=dim)
    y.sum().backward()
    print(x.grad.tolist())
    x.grad = None
""",
    "softmax_exact_bits_float64": """
torch.manual_seed(7)
x = torch.randn(3, 10, dtype=torch.float64, requires_grad=True)
y = F.softmax(x, dim=1)
y.backward(torch.ones(3, 10, dtype=torch.float64))
y.tolist(), x.grad.tolist()
""",
    "softmax_double_backward": """
x = torch.tensor([[1., -2., 3.], [0.5, 0., -1.]], requires_grad=True)
y = F.softmax(x, dim=1)
(g,) = torch.autograd.grad((y * torch.tensor([1., 2., 3.])).sum(), x, create_graph=True)
g
g.sum().backward()
x.grad
x.grad = None
z = F.log_softmax(x, dim=0)
(h,) = torch.autograd.grad((z * torch.tensor([1., 2., 3.])).sum(), x, create_graph=True)
h
(h * h).sum().backward()
x.grad
""",
    "eval_no_grad": """
torch.manual_seed(0)
model = nn.Linear(3, 2)
x = torch.rand(1, 3)
model.eval()
with torch.no_grad():
    y = model(x)
y, y.requires_grad, y.grad_fn
""",
    "linear_exact_bits": """
torch.manual_seed(11)
lin = nn.Linear(10, 7)
x = torch.randn(4, 10)
y = lin(x)
y.tolist()
lin(x[0]).tolist()
loss = F.mse_loss(y, torch.randn(4, 7))
loss.item()
loss.backward()
lin.weight.grad[0].tolist(), lin.bias.grad.tolist()
""",
    "loss_exact_bits": """
torch.manual_seed(12)
a = torch.randn(25, requires_grad=True)
b = torch.randn(25)
F.mse_loss(a, b).item(), F.mse_loss(a, b, reduction='sum').item()
F.l1_loss(a, b).item(), F.l1_loss(a, b, reduction='sum').item()
F.mse_loss(a, b).backward()
a.grad[:5].tolist()
""",
    # ------------------------------------------------------------ losses
    "mse_loss": GRAPH_HELPER + """
pred = torch.tensor([1., 2., 3.], requires_grad=True)
target = torch.tensor([1., 0., 5.])
loss = nn.MSELoss()(pred, target)
loss
graph(loss.grad_fn)
loss.backward()
pred.grad
F.mse_loss(pred, target, reduction='sum')
F.mse_loss(pred, target, reduction='none')
nn.MSELoss(reduction='sum')(pred, target)
a = torch.tensor([1., 2.], requires_grad=True)
b = torch.tensor([0., 0.], requires_grad=True)
l = F.mse_loss(a, b)
graph(l.grad_fn)
l.backward()
a.grad, b.grad
F.mse_loss(torch.tensor(2., requires_grad=True), torch.tensor(1.))
F.mse_loss(torch.zeros(0, requires_grad=True), torch.zeros(0))
F.mse_loss(torch.tensor([1., 2.]), torch.tensor([0., 0.]))
F.mse_loss(torch.ones(2, dtype=torch.float64, requires_grad=True), torch.ones(2))
""",
    "mse_loss_broadcast": GRAPH_HELPER + """
x = torch.tensor([[1.], [2.], [3.]], requires_grad=True)
y = torch.tensor([1., 0., 5.])
for red in ("mean", "sum", "none"):
    l = F.mse_loss(x, y, reduction=red)
    print(red, l)
    graph(l.grad_fn)
    l.sum().backward()
    print(x.grad)
    x.grad = None
a = torch.ones(3, 3, requires_grad=True)
graph(F.mse_loss(a, torch.ones(3)).grad_fn)
""",
    "mse_loss_size_error": "F.mse_loss(torch.ones(2), torch.ones(3))",
    "mse_loss_bad_reduction": "F.mse_loss(torch.ones(2), torch.ones(2), reduction='bad')",
    "mse_loss_module_bad_reduction": "nn.MSELoss(reduction='avg')(torch.ones(2), torch.ones(2))",
    "mse_loss_list_target": "F.mse_loss(torch.ones(2), [1., 2.])",
    "mse_loss_float_target": "F.mse_loss(torch.ones(2), 1.)",
    "mse_loss_long": "F.mse_loss(torch.tensor([1, 2]), torch.tensor([1, 3]))",
    "l1_loss": GRAPH_HELPER + """
pred = torch.tensor([1., 2., 3.], requires_grad=True)
target = torch.tensor([1., 0., 5.])
loss = nn.L1Loss()(pred, target)
loss
graph(loss.grad_fn)
loss.backward()
pred.grad
F.l1_loss(pred, target, reduction='none')
F.l1_loss(pred, target, reduction='sum')
nn.L1Loss(reduction='sum')(pred, target)
a = torch.tensor([1., 2.], requires_grad=True)
b = torch.tensor([0., 0.], requires_grad=True)
l = F.l1_loss(a, b)
graph(l.grad_fn)
l.backward()
a.grad, b.grad
F.l1_loss(torch.zeros(0, requires_grad=True), torch.zeros(0))
F.l1_loss(torch.tensor([1, 2]), torch.tensor([0, 5]), reduction='sum')
""",
    "l1_loss_broadcast": GRAPH_HELPER + """
x = torch.tensor([[1.], [2.], [3.]], requires_grad=True)
y = torch.tensor([1., 0., 5.])
for red in ("mean", "sum", "none"):
    l = F.l1_loss(x, y, reduction=red)
    print(red, l)
    graph(l.grad_fn)
    l.sum().backward()
    print(x.grad)
    x.grad = None
""",
    "l1_loss_size_error": "F.l1_loss(torch.ones(2), torch.ones(3))",
    "l1_loss_bad_reduction": "F.l1_loss(torch.ones(2), torch.ones(2), reduction='bad')",
    "l1_loss_long_mean": "F.l1_loss(torch.tensor([1, 2]), torch.tensor([0, 5]))",
    "loss_module_with_tensors": """
torch.manual_seed(0)
lin = nn.Linear(3, 5)
x = torch.rand(1, 3)
y = lin(x)
gt = torch.rand(1, 5)
l = nn.L1Loss(y, gt)
""",
    "loss_module_with_one_element_tensors": """
y = torch.tensor([2.], requires_grad=True)
gt = torch.tensor([0.])
l = nn.L1Loss(y, gt)
l
l.reduction
m = nn.MSELoss(torch.tensor(0.), torch.tensor(1.))
m.reduction
nn.MSELoss(True, False).reduction
nn.L1Loss(size_average=False).reduction
l.is_leaf
""",
    "loss_module_with_empty_tensor": "nn.L1Loss(torch.ones(0))",
    "loss_module_called": """
torch.manual_seed(0)
def check(x):
    print(f'is_leaf: {x.is_leaf}, requires_grad: {x.requires_grad}, grad_fn: {x.grad_fn}, grad: {x.grad}')
lin = nn.Linear(3, 5)
x = torch.rand(1, 3)
y = lin(x)
gt = torch.rand(1, 5)
l = nn.L1Loss()(y, gt)
check(l)
l.backward()
check(lin.weight)
check(x)
check(gt)
""",
    "functional_size_average": """
F.mse_loss(torch.tensor([1., 2.]), torch.tensor([0., 0.]), size_average=False)
F.l1_loss(torch.tensor([1., 2.]), torch.tensor([0., 0.]), reduce=False)
""",
    # ------------------------------------------------------------ init
    "init_functions": """
torch.manual_seed(0)
w = torch.zeros(2, 3)
nn.init.uniform_(w)
nn.init.uniform_(w, -2., 2.)
nn.init.normal_(w)
nn.init.normal_(w, 1., 0.1)
nn.init.constant_(w, 0.3)
nn.init.ones_(w)
nn.init.zeros_(w)
nn.init.eye_(w)
nn.init.xavier_uniform_(w)
nn.init.xavier_normal_(w)
nn.init.kaiming_uniform_(w)
nn.init.kaiming_normal_(w, mode='fan_out', nonlinearity='relu')
nn.init.kaiming_uniform_(w, a=0.2)
w._version
nn.init.xavier_uniform_(torch.zeros(2, 3), gain=nn.init.calculate_gain('relu'))
nn.init.calculate_gain('tanh'), nn.init.calculate_gain('leaky_relu', 0.2), nn.init.calculate_gain('sigmoid')
nn.init.calculate_gain('selu'), nn.init.calculate_gain('relu')
nn.init.uniform_(torch.zeros(2, dtype=torch.float64))
nn.init.normal_(torch.zeros(20))
""",
    "init_parameter": """
torch.manual_seed(0)
lin = nn.Linear(2, 2)
nn.init.zeros_(lin.bias)
nn.init.xavier_uniform_(lin.weight)
lin.weight.grad_fn, lin.weight.is_leaf
lin.weight._version
y = lin(torch.ones(2))
y
""",
    "init_xavier_1d": "nn.init.xavier_uniform_(torch.zeros(3))",
    "init_kaiming_bad_mode": "nn.init.kaiming_uniform_(torch.zeros(3, 2), mode='fan')",
    "init_bad_nonlinearity": "nn.init.calculate_gain('swish')",
    "init_bad_slope": "nn.init.calculate_gain('leaky_relu', 'a')",
    "init_kaiming_zero_element": "nn.init.kaiming_uniform_(torch.zeros(0, 3))",
    "init_eye_1d": "nn.init.eye_(torch.zeros(3))",
    "init_uniform_long": "nn.init.uniform_(torch.zeros(3, dtype=torch.int64))",
}


def record() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "simd_cases"))
    from record_simd_cases import in_capability

    in_capability("avx512")
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    triggered = re.compile(r"\s*\(Triggered internally at [^)]*\)\s*$")

    def set_sink(sink):
        warnings.simplefilter("always")
        warnings.showwarning = lambda message, category, *rest, **kw: sink(
            category.__name__, triggered.sub("", str(message)))

    cases = []
    for name, code in CASES.items():
        namespace = {"torch": torch, "nn": nn, "F": F}
        cases.append({"name": name, "code": code, "output": run_program(code, namespace, set_sink)})
    from gradcalc.autograd.cpu import machine_record

    OUT.write_text(json.dumps({"torch_version": torch.__version__, "machine": machine_record(), "cases": cases},
                              indent=1) + "\n")
    print(f"wrote {len(cases)} cases to {OUT}")


if __name__ == "__main__":
    record()
