import os
import sys
import tempfile

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))

# Tests must not read or write the user's real cache.
os.environ.setdefault("SRCDIFF_CACHE_DIR", tempfile.mkdtemp(prefix="srcdiff-test-cache-"))


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


import srcdiff  # noqa: E402

# Every call of a shape-specialised variant is checked against the generic code (specialize.py).
srcdiff.config(specialize="check")
