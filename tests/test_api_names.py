"""Every public name of PyTorch 2.13's dense tensor API exists in gradcalc.

tests/api/torch_api.json records the names of torch, torch.Tensor, torch.linalg, torch.special
and torch.fft (tests/api/record_api.py made it from PyTorch). A name may be missing only if it
falls in one of the reasoned exclusions below; an exclusion that names something gradcalc has
fails too, so the list stays as short as the truth.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gradcalc.autograd.ops import torch_namespaces
from gradcalc.autograd.tensor import Tensor

RECORDED = json.loads((Path(__file__).parent / "api" / "torch_api.json").read_text())["namespaces"]

# reason -> the names (or full-match patterns) it covers, per namespace ("*" for all)
EXCLUDED: dict = {
    "host modules and Python helpers torch re-exports: programs reach no module of the host": {"torch": [
        "os", "sys", "math", "builtins", "functools", "ctypes", "glob", "importlib", "inspect", "platform",
        "textwrap", "threading", "types", "warnings", "TYPE_CHECKING", "USE_GLOBAL_DEPS",
        "USE_RTLD_GLOBAL_WITH_LIBTORCH", "classproperty", "torch", "PRIVATE_OPS", "LockingLogger", "LoggerBase",
        "NoopLogger"], "*": ["Tensor", "torch", "common_args", "multi_dim_common", "factory_common_args",
                             "common_notes"]},
    "submodules outside the dense tensor API (torch.nn, torch.optim and data are another issue's)": {"torch": [
        "nn", "optim", "utils", "distributed", "distributions", "multiprocessing", "fx", "jit", "compiler", "export",
        "func", "hub", "package", "profiler", "quantization", "ao", "backends", "amp", "library", "ops", "classes",
        "testing", "masked", "nested", "overrides", "monitor", "futures", "signal", "serialization", "storage",
        "version", "return_types", "random", "quasirandom", "accelerator", "cpu", "cuda", "mps", "xpu", "mtia",
        "functional", "torch_version", "windows", "sparse", "cpp", "autograd", "linalg", "special", "fft"]},
    "TorchScript, torch.compile, function transforms and symbolic shapes": {"torch": [
        "AliasDb", "AnyType", "Argument", "ArgumentSpec", "AwaitType", "BenchmarkConfig", "BenchmarkExecutionStats",
        "Block", "BoolType", "BufferDict", "CallStack", "Capsule", "ClassType", "Code", "CompilationUnit",
        "CompleteArgumentSpec", "ComplexType", "ConcreteModuleType", "ConcreteModuleTypeBuilder", "DeepCopyMemoTable",
        "DeviceObjType", "DictType", "EnumType", "ErrorReport", "ExecutionPlan", "FatalError", "FileCheck",
        "FloatType", "FunctionSchema", "Future", "FutureType", "Gradient", "Graph", "GraphExecutorState",
        "IODescriptor", "InferredType", "IntType", "InterfaceType", "JITException", "ListType", "LiteScriptModule",
        "ModuleDict", "Node", "NoneType", "NumberType", "OperatorInfo", "OptionalType", "ParameterDict",
        "PyObjectType", "RRefType", "Script.*", "StaticModule", "StreamObjType", "StringType", "Sym.*", "Tag",
        "TensorType", "ThroughputBenchmark", "TracingState", "TupleType", "Type", "UnionType", "Use", "Value",
        "AVG", "SUM", "AggregationType", "DispatchKey", "DispatchKeySet", "ExcludeDispatchKeyGuard", "compile",
        "cond", "while_loop", "vmap", "fork", "wait", "sym_.*", "parse_ir", "parse_schema", "parse_type_comment",
        "import_ir_module", "import_ir_module_from_buffer", "merge_type_from_type_comment", "unify_type_list",
        "get_file_path"]},
    "accelerators, streams and devices other than the CPU": {"torch": [
        "Stream", "Event", "AcceleratorError", "OutOfMemoryError", "GradScaler", "cudnn_.*", "miopen_.*",
        "mkldnn_.*", "get_device_module", "profiler_allow_cudagraph_cupti_lazy_reinit_cuda12",
        "thread_safe_generator", "is_distributed"], "torch.Tensor": [
        "ipu", "xpu", "mtia", "record_stream", "to_mkldnn", "is_distributed"]},
    "sparse, quantized and nested tensors: gradcalc's tensors are dense and strided": {"torch": [
        "sparse_.*", ".*_indices_copy", "indices_copy", "values_copy", "smm", "spmm", "dsmm", "hsmm", "hspmm",
        "sspaddmm", "saddmm", "q_.*", "quantize_.*", "quantized_.*", "dequantize", "int_repr", "fake_quantize_.*",
        "fbgemm_.*", "choose_qparams_optimized", "fused_moving_avg_obs_fake_quant", "qint8", "qint32", "quint8",
        "quint4x2", "quint2x4", "qscheme", "per_channel_.*", "per_tensor_.*", "empty_quantized", "segment_reduce",
        "jagged", "native_norm", "resize_as_sparse_", "QInt.*Storage", "QUInt.*Storage"], "torch.Tensor": [
        "coalesce", "is_coalesced", "dense_dim", "sparse_dim", "sparse_mask", "sparse_resize_", "sparse_resize_and_clear_",
        "resize_as_sparse_", "to_sparse.*", "smm", "sspaddmm", "to_padded_tensor", "q_.*", "qscheme",
        "dequantize", "int_repr"]},
    "dtypes PyTorch only stores: most of its ops are not implemented for them": {"torch": [
        "complex32", "chalf", "float8_.*", "float4_.*", "uint1", "uint2", "uint3", "uint4", "uint5", "uint6",
        "uint7", "int1", "int2", "int3", "int4", "int5", "int6", "int7", "bit", "bits.*",
        "hash_tensor"],
        "torch.Tensor": ["chalf", "hash_tensor"]},
    "torch.nn.functional's kernels, which torch re-exports: the nn issue's": {"torch": [
        "conv_tbc", "batch_norm_.*", "rms_norm", "native_batch_norm",
        "native_group_norm", "native_layer_norm", "native_dropout", "dropout", "dropout_",
        "alpha_dropout", "alpha_dropout_", "feature_dropout", "feature_dropout_", "feature_alpha_dropout",
        "feature_alpha_dropout_", "embedding_bag", "embedding_renorm_", "lstm", "lstm_cell", "gru",
        "gru_cell", "rnn_relu", "rnn_relu_cell", "rnn_tanh", "rnn_tanh_cell",
        "bilinear", "cosine_embedding_loss", "grid_sampler_3d",
        "kl_div", "margin_ranking_loss", "hinge_embedding_loss",
        "poisson_nll_loss", "triplet_margin_loss", "is_distributed"]},
    "files, processes and memory buffers of the host": {"torch": [
        "save", "load", "from_file", "frombuffer", "from_dlpack", "to_dlpack", "PyTorchFileReader",
        "PyTorchFileWriter", "SerializationStorageContext", "DeserializationStorageContext",
        "prepare_multiprocessing_environment"]},
    "the legacy typed storage classes (tensor.storage() and untyped_storage() are there)": {"torch": [
        "(?!Typed|Untyped).*Storage", "StorageBase"], "torch.Tensor": ["storage_type"]},
    "Tensor subclasses, torch function overrides and first-class dims": {"torch": [
        "DisableTorchFunction", "DisableTorchFunctionSubclass"], "torch.Tensor": ["as_subclass", "index"]},
    "an internal op of PyTorch's functionalization pass": {"torch": ["slice_inverse"],
                                                          "torch.Tensor": ["slice_inverse"]},
}


def _have(namespace: str) -> set:
    if namespace == "torch.Tensor":
        return set(dir(Tensor))
    return set(torch_namespaces()[namespace])


def _excluded(namespace: str, name: str) -> list:
    reasons = []
    for reason, by_namespace in EXCLUDED.items():
        for pattern in by_namespace.get(namespace, []) + by_namespace.get("*", []):
            if re.fullmatch(pattern, name):
                reasons.append(reason)
    return reasons


@pytest.mark.parametrize("namespace", sorted(RECORDED))
def test_every_public_name_exists(namespace: str) -> None:
    have = _have(namespace)
    missing = sorted(name for name in RECORDED[namespace]
                     if not name.startswith("_") and name not in have and not _excluded(namespace, name))
    assert not missing, f"{namespace}: PyTorch names gradcalc lacks: {missing}"


@pytest.mark.parametrize("namespace", sorted(RECORDED))
def test_exclusions_name_only_missing_things(namespace: str) -> None:
    have = _have(namespace)
    needless = sorted(name for name in RECORDED[namespace] if name in have and _excluded(namespace, name)
                      and name not in ("Tensor", "autograd", "linalg", "special", "fft", "cuda"))
    assert not needless, f"{namespace}: excluded but present: {needless}"
