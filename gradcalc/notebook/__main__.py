"""`python -m gradcalc.notebook -f CONNECTION_FILE`, the kernelspec's command: the worker is
launched first, so that it loads and jails itself while ipykernel (half a second) is imported."""
from ..worker.client import Worker

_worker = Worker(capture=True)
_worker.launch()

from .kernel import main  # noqa: E402  (after the launch, on purpose)

main(_worker)
