"""With the `mkl` extra, gradcalc computes with PyTorch's own MKL where ATen calls it, bit for bit:
every case is checked against the digest recorded from PyTorch 2.13 on the machine in
mkl_cases/ (MKL picks its kernels by processor, so a recording holds on its own machine only);
those listed in mkl_cases/known_differences.json, digits known to differ even so, are strict
expected failures. Skipped without the extra, or on another machine."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Optional

import numpy as np
import pytest

from gradcalc.autograd import cpu, mkl
from gradcalc.autograd.api import backward
from gradcalc.autograd.ops import torch_namespaces
from gradcalc.autograd.ops.registry import OPS
from gradcalc.autograd.ops.tensor_numpy import from_numpy
from gradcalc.nn.functional.layers import linear
from gradcalc.optim import Adagrad, Adam, RMSprop

CASES_DIR = Path(__file__).parent / "mkl_cases"
_spec = importlib.util.spec_from_file_location("record_mkl_cases", CASES_DIR / "record_mkl_cases.py")
recorder = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(recorder)
RECORDED = {cpu.machine_label(json.loads(path.read_text())["machine"]): json.loads(path.read_text())
            for path in sorted(CASES_DIR.glob("mkl_cases_*.json"))}
HERE = cpu.machine_label(cpu.machine_record())
# gradcalc's ops under torch's names, for the recorder's functions that run a case through either
_NAMESPACES = torch_namespaces()
GRADCALC_TORCH = SimpleNamespace(**_NAMESPACES["torch"], linalg=SimpleNamespace(**_NAMESPACES["torch.linalg"]),
                                 fft=SimpleNamespace(**_NAMESPACES["torch.fft"]),
                                 optim=SimpleNamespace(Adam=Adam, RMSprop=RMSprop, Adagrad=Adagrad))
CASES = RECORDED.get(HERE, {"cases": []})["cases"]


@pytest.fixture(autouse=True)
def with_mkl():
    """MKL on for these tests (the suite runs with the emulation), or the reason it cannot be."""
    with mkl.turned(True):
        if mkl.library() is None:
            pytest.skip(f"the MKL backend is not available: {mkl.describe()}")
        if not CASES:
            pytest.skip(f"no recording from PyTorch on this machine ({HERE})")
        yield


def _torch(name: str):
    return OPS[("torch", name)].impl


def _computed(case: dict) -> np.ndarray:
    dtype = np.dtype(case["dtype"]).type
    if case["op"] == "cholesky":
        matrix = from_numpy(recorder.positive_definite(case["shape"][0], dtype))
        return OPS[("linalg", "cholesky")].impl(matrix, upper=case["upper"])._data
    if case["op"] in BATCHED:
        return _batched(case, dtype)
    if case["op"] in recorder.FAMILIES:
        outputs_of = recorder.FAMILIES[case["op"]][0]
        return recorder.joined(outputs_of(GRADCALC_TORCH, case["op"], case["seed"], tuple(case["shape"]), dtype))
    if case["op"] in recorder.VML:
        return _torch(case["op"])(from_numpy(recorder.vml_inputs(case["op"], dtype)))._data
    m, k, n = case["shape"]
    a, b = recorder.factors(case["seed"], m, k, n, case["layout"], dtype)

    def t(x: np.ndarray):
        return from_numpy(recorder.laid_out(x))
    if case["op"] == "mm":
        return _torch("mm")(t(a), t(b))._data
    bias, weight = recorder.vector(case["seed"] + 1000, n, dtype), np.ascontiguousarray(b.T)
    if case["op"] == "addmm":
        return _torch("addmm")(t(bias), t(a), t(b), beta=0.5, alpha=2.0)._data
    if case["op"] == "linear":
        return linear(t(a), t(weight), t(bias))._data
    if case["op"] == "linear1d":
        return linear(t(np.ascontiguousarray(a[0])), t(weight), t(bias))._data
    if case["op"] == "mv":
        return _torch("mv")(t(a), t(recorder.vector(case["seed"] + 2000, k, dtype)))._data
    if case["op"] == "addmv":
        return _torch("addmv")(t(recorder.vector(case["seed"] + 4000, m, dtype)), t(a),
                               t(recorder.vector(case["seed"] + 2000, k, dtype)), beta=0.5, alpha=2.0)._data
    if case["op"] == "baddbmm":
        return _torch("baddbmm")(t(bias), *map(t, recorder.batches(a, b)), beta=0.5, alpha=2.0)._data
    if case["op"] == "addbmm":
        return _torch("addbmm")(t(bias), *map(t, recorder.batches(a, b)), beta=0.5, alpha=2.0)._data
    if case["op"] == "addbmm_unscaled":
        return _torch("addbmm")(t(recorder.vector(case["seed"] + 5000, m * n, dtype).reshape(m, n)),
                                *map(t, recorder.batches(a, b)))._data
    if case["op"] == "dot":
        return _torch("dot")(t(np.ascontiguousarray(a[0])), t(recorder.vector(case["seed"] + 3000, k, dtype)))._data
    if case["op"] == "bmm":
        return _torch("bmm")(*map(t, recorder.batches(a, b)))._data
    if case["op"] == "matmul_broadcast":
        return _torch("matmul")(*map(t, recorder.broadcast(a, b)))._data
    return _torch("matmul")(t(np.stack([a, a[::-1]])), t(b))._data


BATCHED = ("bmm_stack", "baddbmm_stack", "bmm_grad", "matmul_batched")


def _batched(case: dict, dtype: type) -> np.ndarray:
    shape = tuple(case["shape"])
    if case["op"] == "matmul_batched":
        return _torch("matmul")(*map(from_numpy, recorder.matmul_operands(case["seed"], shape, case["layout"],
                                                                          dtype)))._data
    first, second = (from_numpy(recorder.stack_view(spec))
                     for spec in recorder.stacks(case["seed"], shape, case["layout"], dtype))
    if case["op"] == "bmm_stack":
        return _torch("bmm")(first, second)._data
    if case["op"] == "baddbmm_stack":
        bias = from_numpy(recorder.vector(case["seed"] + 1000, shape[3], dtype))
        return _torch("baddbmm")(bias, first, second, beta=0.5, alpha=2.0)._data
    first.requires_grad_(), second.requires_grad_()
    gradient = np.random.default_rng(case["seed"] + 2000).standard_normal((shape[0], shape[1], shape[3]))
    backward(_torch("bmm")(first, second), from_numpy(gradient.astype(dtype)))
    return np.concatenate([first.grad._data.ravel(), second.grad._data.ravel()])


def _id(case: dict) -> str:
    shape = "x".join(map(str, case.get("shape", ()))) + ("-" + case["layout"] if "layout" in case else "") \
        + ("-upper" if case.get("upper") else "")
    return "-".join(filter(None, (case["op"], case["dtype"], shape)))


# cases whose digits are known to differ on a machine even with MKL, and why
KNOWN = json.loads((CASES_DIR / "known_differences.json").read_text())


def _param(case: dict):
    known = HERE in KNOWN["machines"] and _id(case) in KNOWN["cases"]
    return pytest.param(case, id=_id(case), marks=[pytest.mark.xfail(reason=KNOWN["reason"], strict=True)] if known
                        else [])


@pytest.mark.parametrize("case", [_param(case) for case in CASES])
def test_mkl_result_has_pytorchs_bits(case: dict) -> None:
    assert recorder.digest(_computed(case)) == case["digest"]


def test_turned_off_means_the_emulation() -> None:
    a, b = recorder.factors(0, 4, 16, 12, "nn", np.float32)
    with mkl.turned(False):
        assert mkl.gemm(a, b) is None and mkl.vml("ExpBackward0", a) is None
        assert mkl.describe() == "emulation (GRADCALC_MKL=0)"


def test_computing_as_on_another_sgemm_path_means_the_emulation() -> None:
    """MKL follows this processor: as on a machine whose sgemm takes the other code path (an
    answer recorded there), the emulation computes, and MKL again after."""
    other = {**cpu.machine_record(), "sgemm": "avx2" if cpu.SGEMM_AVX512 else "avx512"}
    a, b = recorder.factors(0, 4, 16, 12, "nn", np.float32)
    with cpu.emulating(other):
        assert mkl.gemm(a, b) is None
    assert mkl.gemm(a, b) is not None


def test_an_sgemm_path_mkl_does_not_take_here_means_the_emulation() -> None:
    """MKL_CBWR=AVX512 asks for MKL's AVX-512 sgemm, which MKL takes on Intel's processors with
    AVX-512 only (on this AMD one, PyTorch's digits stay its AVX2 ones, measured): elsewhere the
    emulation computes as on such a processor, and the backend steps aside."""
    intel = cpu.processor_has_avx512() and cpu.machine_record()["processor"].startswith("GenuineIntel")
    version = subprocess.run([sys.executable, "-m", "gradcalc", "--version"], capture_output=True, text=True,
                             timeout=300, env={**os.environ, "GRADCALC_MKL": "1", "MKL_CBWR": "AVX512"})
    # recorded on an AMD EPYC with AVX-512, where MKL's sgemm takes its AVX2 path
    expected = (f"backend: Intel MKL {mkl.VERSION} (GNU OpenMP, one thread)" if intel else
                "backend: emulation (computing as with another sgemm code path than MKL takes on this processor)")
    assert version.stdout.splitlines()[-1] == expected


def test_a_program_computes_with_mkl_behind_the_sandbox() -> None:
    """gradcalc's calls into MKL pass the sandbox's wall (a program's own ctypes stays refused):
    PyTorch's float32 sqrt of this value is MKL's, one unit in the last place off the correctly
    rounded 1.8037647008895874; and the version names the backend."""
    program = "print(torch.sqrt(torch.tensor([3.2535672187805176])).item()); import ctypes"
    done = subprocess.run([sys.executable, "-m", "gradcalc", "-e", program], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "GRADCALC_MKL": "1", "NO_COLOR": "1"})
    assert done.stdout.splitlines()[0] == "1.803764820098877"
    assert "ctypes" in done.stderr and done.returncode == 1
    version = subprocess.run([sys.executable, "-m", "gradcalc", "--version"], capture_output=True, text=True,
                             timeout=300, env={**os.environ, "GRADCALC_MKL": "1"})
    assert version.stdout.splitlines()[-1] == f"backend: Intel MKL {mkl.VERSION} (GNU OpenMP, one thread)"


def test_mkl_is_loaded_on_first_use_only() -> None:
    """A program without a routed op never loads MKL (start-up stays as it was); one with does."""
    script = ("import sys\nfrom gradcalc import cli\nfrom gradcalc.autograd import mkl\n"
              "for program in ('x = tensor([1.0, 2.0]) * 3 + 1', 'y = tensor([1.0]).exp()'):\n"
              "    sys.argv = ['gradcalc', '-e', program]\n"
              "    try:\n        cli.main()\n    except SystemExit:\n        pass\n"
              "    print(mkl._state['library'] is not mkl._UNLOADED)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "GRADCALC_MKL": "1"}, cwd=Path(__file__).parent)
    assert done.stdout.split() == ["False", "True"]


# The machine (cpu.machine_label) the golden programs below that depend on the processor were
# recorded on: an AVX-512 AMD EPYC, whose MKL keeps to its AVX2 sgemm
_GOLDENS_RECORDED_ON = "avx512-sgemm-avx2"


def _golden_stdout_holds_with_mkl(program: Path, recorded_on: Optional[str] = None) -> None:
    """The golden PROGRAM's answer, recorded from PyTorch, holds with MKL too (where its answer
    depends on the processor, on the machine RECORDED_ON only: MKL's products and vector math,
    and ATen's registers, follow the processor)."""
    if recorded_on is not None and HERE != recorded_on:
        pytest.skip(f"recorded on a {recorded_on} machine; this one is {HERE}")
    expected = json.loads(program.with_name(program.stem + ".expected.json").read_text())
    done = subprocess.run([sys.executable, "-m", "gradcalc", program.name], capture_output=True, text=True,
                          timeout=300, cwd=program.parent, env={**os.environ, "GRADCALC_MKL": "1", "NO_COLOR": "1"})
    assert done.stdout == expected["stdout"]


def test_a_product_too_large_for_memory_fails_as_in_pytorch() -> None:
    """MKL's result storages refuse an impossible size with PyTorch's allocator error, as the
    emulation's do."""
    _golden_stdout_holds_with_mkl(Path(__file__).parent / "golden" / "ops" / "memory" / "out_of_memory.grad")


def test_mkl_results_are_storages_of_their_elements() -> None:
    """A result MKL writes (a product, a batched product, a matrix-vector product, a VML function,
    a factorization) lies in a storage of its dtype's elements, as a tensor's does: as_strided,
    resize_, storage_offset and untyped_storage read it as in PyTorch (they read its bytes as
    elements before)."""
    _golden_stdout_holds_with_mkl(Path(__file__).parent / "golden" / "ops" / "views_and_shape" /
                                  "strided_views_of_products.grad")


def test_float64_lstm_cells_run_as_in_pytorch() -> None:
    """pytorch/examples' time_sequence_prediction model, forward: its float64 gates' sigmoid takes
    SLEEF's double exp (in registers, the C library's exp after them, row by row of the gate
    chunks) and their tanh MKL's vector math; its outputs hold to the last bit (the default
    emulation's tanh is not MKL's: a known gap there)."""
    _golden_stdout_holds_with_mkl(Path(__file__).parent / "golden" / "nn" / "recurrent" /
                                  "06_time_sequence_lstm_cells_float64.grad",
                                  _GOLDENS_RECORDED_ON)


def test_pow_with_one_half_takes_the_square_root_kernel() -> None:
    """ATen's pow sends the exponent 0.5 to torch.sqrt's kernel, MKL's vector math."""
    _golden_stdout_holds_with_mkl(Path(__file__).parent / "golden" / "ops" / "pointwise" / "pow_half_is_sqrt.grad",
                                  _GOLDENS_RECORDED_ON)


def test_logsumexp_takes_the_exp_and_log_kernels() -> None:
    """torch.logsumexp's documentation example and larger inputs: ATen's logsumexp calls torch.exp
    and torch.log, MKL's vector math, between its max and its sum."""
    _golden_stdout_holds_with_mkl(Path(__file__).parent / "golden" / "ops" / "reduction" / "logsumexp_docs.grad",
                                  _GOLDENS_RECORDED_ON)


def test_float64_tanh_gradient_is_fused_as_in_pytorch() -> None:
    """d2l's tanh gradient in float64: 1 - y * y is one fused multiply-add in ATen's kernel, as in
    float32 (with MKL's tanh, the outputs it starts from are PyTorch's)."""
    _golden_stdout_holds_with_mkl(Path(__file__).parent / "golden" / "ops" / "pointwise" /
                                  "tanh_gradient_float64.grad",
                                  _GOLDENS_RECORDED_ON)


def test_float32_lstm_cell_gates_as_in_pytorch() -> None:
    """nn.LSTMCell's documentation example in float32: the gates' sigmoid runs over the strided
    chunks of the gates row by row, whole registers of each row through SLEEF's exp and the rest
    through glibc's expf, as TensorIterator's inner loop runs."""
    _golden_stdout_holds_with_mkl(Path(__file__).parent / "golden" / "nn" / "recurrent" /
                                  "08_lstm_cell_docs_example.grad",
                                  _GOLDENS_RECORDED_ON)


def test_float64_lstm_cells_train_as_in_pytorch() -> None:
    """time_sequence_prediction's training: LBFGS's closures run the LSTM cells forward and
    backward, and every loss, prediction and gradient holds to the last bit: the gates' gradients
    take tanh's 1 - y * y as ATen's kernel computes it, one fused multiply-add (its compiler
    contracts the expression), and LBFGS's float64 updates are FMAs."""
    _golden_stdout_holds_with_mkl(Path(__file__).parent / "golden" / "nn" / "recurrent" /
                                  "07_time_sequence_lbfgs_training.grad",
                                  _GOLDENS_RECORDED_ON)
