"""torch.nn.utils: its functions, and the modules a program reaches as torch.nn.utils.NAME (SUBMODULES)."""
from .clip_grad import clip_grad_norm_, clip_grad_value_

__all__ = ["clip_grad_norm_", "clip_grad_value_"]

# torch.nn.utils.NAME for each NAME here is gradcalc.nn.utils.NAME's __all__ (language/modules/torch.py)
SUBMODULES = ("clip_grad", "parametrize", "parametrizations")
