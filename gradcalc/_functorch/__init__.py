"""Function transforms (torch.func), laid out as torch/_functorch."""
