"""torch.nn.utils: its functions, and the modules a program reaches as torch.nn.utils.NAME (SUBMODULES)."""
from .clip_grad import clip_grad_norm_, clip_grad_value_
from .convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = ["clip_grad_norm_", "clip_grad_value_", "parameters_to_vector", "vector_to_parameters"]

# torch.nn.utils.NAME for each NAME here is gradcalc.nn.utils.NAME's __all__ (language/modules/torch.py)
SUBMODULES = ("clip_grad", "convert_parameters", "parametrize", "parametrizations", "prune")
