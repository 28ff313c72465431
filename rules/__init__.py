"""Rules of the four games: parameters, data files and compiled forward models.

``rules`` imports nothing from ``strategies``, ``simulate`` or ``reports``. Importing it points
numba's on-disk cache at a project-local directory (``.numba_cache`` beside the packages, or
``$DINOLAB_CACHE_DIR``) so compiled kernels are shared by every process of a run.
"""

from rules.core.jit import configure_numba_cache

configure_numba_cache()
