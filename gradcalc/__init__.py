"""gradcalc: an autograd calculator that prints exactly what PyTorch prints."""
from .machine import pin_numpy

__version__ = "0.1.0"

pin_numpy()  # before anything of gradcalc loads numpy
