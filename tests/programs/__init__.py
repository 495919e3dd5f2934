"""Realistic numpy programs that srcdiff must differentiate as written (issue 16).

Each module NAME.py has `import numpy as np` on a line of its own (a test swaps it for
`import autograd.numpy as np`, and `from scipy.X import ...` for autograd's scipy), a function `loss` differentiated with respect to its first
argument (parameters as their authors hold them: lists of pairs, dicts, a dataclass), and
`example(rng)` returning `loss`'s arguments: float64, small, and any noise passed in.
"""

import importlib.util
import sys
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
NUMPY_IMPORT = "import numpy as np\n"
SCIPY_IMPORTS = (
    "from scipy.linalg import ",
    "from scipy.special import ",
    "from scipy.stats import ",
)
NAMES = (
    "mlp",
    "rnn",
    "lstm",
    "vae",
    "svi",
    "gmm",
    "fluid",
    "hmm",
    "neural_ode",
    "mlp_activation",
    "dataclass_model",
    "flatten",
    "maml",
    "kalman",
    "tsne",
    "reinforce",
    "gp",
    "attention",
    "cnn",
    "word2vec",
    "mdn",
    "flow",
    "nbody",
    "bnn",
    "matfac",
    "gp_kernels",
    "sinkhorn",
    "heat",
    "gnn",
    "gru",
    "deq",
    "hmc",
    "conv1d",
    "logreg_lbfgs",
    "poisson_glm",
    "spring_mass",
    "ridge_bilevel",
    "sequential",
    "particle_filter",
    "style_transfer",
)


def path_of(name):
    return HERE / f"{name}.py"


def load(name):
    """The program as written, imported from its file (srcdiff reads its source there)."""
    module_name = f"srcdiff_programs.{name}"
    spec = importlib.util.spec_from_file_location(module_name, path_of(name))
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # a dataclass looks its module up while being made
    spec.loader.exec_module(module)
    return module


def load_for_autograd(name):
    """The same source with `np` bound to autograd.numpy (and scipy's functions to
    autograd's)."""
    source = path_of(name).read_text()
    assert source.count(NUMPY_IMPORT) == 1, f"{name}.py must import numpy as np once"
    module_name = f"srcdiff_programs.{name}_autograd"
    module = types.ModuleType(module_name)
    module.__file__ = f"{path_of(name)} (autograd.numpy)"
    sys.modules[module_name] = module
    source = source.replace(NUMPY_IMPORT, "import autograd.numpy as np\n")
    for scipy_import in SCIPY_IMPORTS:
        source = source.replace(scipy_import, scipy_import.replace("scipy", "autograd.scipy"))
    code = compile(source, module.__file__, "exec")
    exec(code, vars(module))
    return module
