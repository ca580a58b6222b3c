"""torch.func: function transforms over programs' functions."""
from .._functorch.batch_norm_replacement import replace_all_batch_norm_modules_
from .._functorch.eager_transforms import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize, vjp
from .._functorch.functional_call import functional_call, stack_module_state
from .._functorch.vmap import vmap

__all__ = ["functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp", "linearize",
           "replace_all_batch_norm_modules_", "stack_module_state", "vjp", "vmap"]
