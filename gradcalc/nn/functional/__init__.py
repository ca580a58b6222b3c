"""torch.nn.functional: activations and dropout, losses, and the layers' functions (linear,
convolution, pooling, normalization, embedding, padding, attention). Each function records the
grad_fn PyTorch records for it, so `grad_fn`, `next_functions` and errors read the same."""
from __future__ import annotations

from . import activation, attention, layers, loss, upsampling
from .activation import *  # noqa: F401,F403
from .attention import *  # noqa: F401,F403
from .upsampling import *  # noqa: F401,F403
from .layers import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .loss import legacy_reduction  # noqa: F401  (for the loss modules)
# the mask helpers torch.nn's attention modules call
from .attention import _canonical_mask, _none_or_dtype  # noqa: F401

# legacy_reduction is gradcalc's, for the loss modules: not a name of torch.nn.functional
__all__ = activation.__all__ + attention.__all__ + upsampling.__all__ + [name for name in loss.__all__ if name != "legacy_reduction"] + layers.__all__

for _name in __all__ + ["legacy_reduction"]:
    _function = globals()[_name]
    if getattr(_function, "__module__", "").startswith("gradcalc.nn.functional"):
        _function.__module__ = "torch.nn.functional"  # as torch.typename names them
del _name, _function
