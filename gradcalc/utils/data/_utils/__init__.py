"""torch.utils.data._utils: batching of samples (collate)."""
