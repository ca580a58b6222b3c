"""torch.nn.utils: its functions, and the modules a program reaches as torch.nn.utils.NAME (SUBMODULES), each
loaded when a program reaches it (rnn.py: the packing of variable-length sequences for the recurrent layers)."""
from .clip_grad import clip_grad_norm_, clip_grad_value_
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .init import skip_init
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm

__all__ = ["clip_grad_norm_", "clip_grad_value_", "parameters_to_vector", "vector_to_parameters", "weight_norm",
           "remove_weight_norm", "spectral_norm", "remove_spectral_norm", "skip_init"]

# torch.nn.utils.NAME for each NAME here is gradcalc.nn.utils.NAME's __all__ (language/modules/torch.py)
SUBMODULES = ("clip_grad", "convert_parameters", "init", "parametrize", "parametrizations", "prune", "rnn")
