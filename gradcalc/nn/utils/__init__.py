"""torch.nn.utils: gradient clipping (clip_grad.py); the packing of variable-length sequences for the
recurrent layers is torch.nn.utils.rnn (rnn.py), loaded when a program reaches it."""
from .clip_grad import clip_grad_norm_, clip_grad_value_

__all__ = ["clip_grad_norm_", "clip_grad_value_"]
