"""torch.distributions beyond the golden programs: the reparameterised gamma gradient against
the gamma CDF, and what a run leaves for the next (default validation, the KL registry, the
classes' constraint tables)."""
from __future__ import annotations

import io
import math

import pytest

from gradcalc.autograd.ops import creation, sampling
from gradcalc.autograd import dtypes
from gradcalc.session import Session, TextOutput, reset_global_state


def _gamma_cdf(alpha: float, x: float) -> float:
    return creation.tensor(alpha, dtype=dtypes.float64).igamma(creation.tensor(x, dtype=dtypes.float64)).item()


# (alpha, x) in each of the three regimes: small x (Taylor series), large alpha (saddle point),
# and the rational approximation between
@pytest.mark.parametrize("alpha, x", [(0.5, 0.3), (2.0, 0.1), (1.5, 0.79), (12.0, 12.5), (20.0, 15.0), (30.0, 40.0),
                                      (1.0, 1.5), (3.0, 2.2), (0.7, 4.0), (6.0, 9.0)])
def test_standard_gamma_gradient_is_the_implicit_one(alpha: float, x: float) -> None:
    """dx/dalpha at a fixed quantile: -(d/dalpha cdf(x; alpha)) / pdf(x; alpha), by central differences."""
    h = 1e-5
    cdf_alpha = (_gamma_cdf(alpha + h, x) - _gamma_cdf(alpha - h, x)) / (2 * h)
    pdf = math.exp((alpha - 1) * math.log(x) - x - math.lgamma(alpha))
    alphas = creation.tensor([alpha], dtype=dtypes.float64)
    draws = creation.tensor([x], dtype=dtypes.float64)
    got = sampling.standard_gamma_grad(alphas, draws).item()
    assert got == pytest.approx(-cdf_alpha / pdf, rel=2e-3)


def _run(source: str) -> str:
    out = io.StringIO()
    Session(TextOutput(out, out)).run(source)
    return out.getvalue()


def test_a_run_leaves_no_changes_to_the_next() -> None:
    reset_global_state()
    changed = _run(
        "import torch.distributions as D\n"
        "D.Distribution.set_default_validate_args(False)\n"
        "D.Normal.arg_constraints['loc'] = D.constraints.positive\n"
        "class Mine(D.Normal):\n"
        "    pass\n"
        "@D.register_kl(D.Normal, D.Normal)\n"
        "def rigged(p, q):\n"
        "    return torch.tensor(-1.0)\n"
        "print(D.kl_divergence(D.Normal(0.0, 1.0), D.Normal(0.0, 1.0)), D.Normal(0.0, -1.0).scale)\n")
    assert changed == "tensor(-1.) tensor(-1.)\n"
    reset_global_state()
    fresh = _run(
        "import torch.distributions as D\n"
        "print(D.kl_divergence(D.Normal(0.0, 1.0), D.Normal(0.0, 2.0)), D.Normal.arg_constraints)\n"
        "D.Normal(0.0, -1.0)\n")
    assert fresh.startswith("tensor(0.3181) {'loc': Real(), 'scale': GreaterThan(lower_bound=0.0)}\n"
                            "ValueError: Expected parameter scale")


def test_every_distributions_module_is_importable() -> None:
    """torch.py names torch.distributions' modules without importing the package (start-up)."""
    from gradcalc import distributions
    from gradcalc.language.modules.torch import BUILDERS

    listed = {name.removeprefix("torch.distributions.") for name in BUILDERS if name.startswith("torch.distributions.")}
    assert listed == set(distributions.SUBMODULES)
