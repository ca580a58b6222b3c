"""torch.utils: the data utilities programs import (torch.utils.data) and activation checkpointing."""
