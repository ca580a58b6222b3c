"""torch.distributions: probability distributions with sampling (reparameterized where PyTorch
has it), log densities, entropies and KL divergences, built on gradcalc's tensor ops so that
gradients flow through them, and drawing from the generator in PyTorch's order."""
from __future__ import annotations

from . import constraints, distribution, kl, utils
from .bernoulli import Bernoulli
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .poisson import Poisson
from .uniform import Uniform

__all__ = ["Bernoulli", "Binomial", "Categorical", "Distribution", "Exponential", "ExponentialFamily", "Gamma",
           "Independent", "Laplace", "Multinomial", "MultivariateNormal", "Normal", "OneHotCategorical",
           "OneHotCategoricalStraightThrough", "Poisson", "Uniform", "kl_divergence", "register_kl"]

# each module as a program imports it (torch.distributions.normal), with the names it defines
SUBMODULES = {
    "bernoulli": ("Bernoulli",), "binomial": ("Binomial",), "categorical": ("Categorical",),
    "constraints": tuple(constraints.__all__),
    "distribution": ("Distribution",), "exp_family": ("ExponentialFamily",), "exponential": ("Exponential",),
    "gamma": ("Gamma",), "independent": ("Independent",), "laplace": ("Laplace",), "poisson": ("Poisson",),
    "kl": ("kl_divergence", "register_kl"), "multinomial": ("Multinomial",),
    "multivariate_normal": ("MultivariateNormal",), "normal": ("Normal",),
    "one_hot_categorical": ("OneHotCategorical", "OneHotCategoricalStraightThrough"), "uniform": ("Uniform",),
    "utils": ("broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits", "tril_matrix_to_vec",
              "vec_to_tril_matrix"),
}


def reset() -> None:
    """What one run changes for the next: the default validation and the KL registry."""
    distribution.reset()
    kl.reset()


distribution.remember_class_tables()
