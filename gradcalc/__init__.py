"""gradcalc: an autograd calculator that prints exactly what PyTorch prints."""

__version__ = "0.1.0"
