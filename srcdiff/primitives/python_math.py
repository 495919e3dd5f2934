"""Python's math module: its functions of floats that compute what a numpy ufunc does, with
its parameters, are covered by that ufunc's record (registry.extend), so `math.exp(a)` in
scalar code is differentiated as `np.exp(a)` is. The forward sweep calls them as written
(a Python float out, Python's errors outside their domain)."""

import math

import numpy as np

from .registry import Sample, constants, extend
from .samples import number

_SAME = {
    np.exp: math.exp,
    np.expm1: math.expm1,
    np.log1p: math.log1p,
    np.sin: math.sin,
    np.cos: math.cos,
    np.tan: math.tan,
    np.arctan: math.atan,
    np.sinh: math.sinh,
    np.cosh: math.cosh,
    np.tanh: math.tanh,
    np.arcsinh: math.asinh,
    np.fabs: math.fabs,
    np.rad2deg: math.degrees,
    np.deg2rad: math.radians,
    np.log: math.log,  # (math.log(x, base) is math.log(x) / math.log(base): operator_calls)
    np.log2: math.log2,
    np.log10: math.log10,
    np.sqrt: math.sqrt,
}

for ufunc, function in _SAME.items():  # (number(): positive, in every one's domain)
    extend(ufunc, function, samples=[Sample(f"math.{function.__name__}(x)", x=number())])
extend(np.power, math.pow, samples=[Sample("math.pow(x1, x2)", x1=number(), x2=number())])
extend(np.arctan2, math.atan2, samples=[Sample("math.atan2(x1, x2)", x1=number(), x2=number())])
extend(np.hypot, math.hypot, samples=[Sample("math.hypot(x1, x2)", x1=number(), x2=number())])
for function in (math.floor, math.ceil, math.trunc, math.isfinite, math.isnan, math.isinf):
    # (an int, or a bool: no derivative)
    constants(function, samples=[Sample(f"x * math.{function.__name__}(3 * x)", x=number())])
