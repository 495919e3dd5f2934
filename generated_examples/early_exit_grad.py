# Emitted by srcdiff from generated_examples/early_exit.py (function early_exit, mode grad, wrt=(0,)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
"""Gradient of generated_examples.early_exit.early_exit with respect to x.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime


def dearly_exit(x):
    _stack_cond0 = []
    _stack_cond2 = []
    _stack_t0 = []
    _stack_t1 = []
    _stack_t2 = []
    _stack_total = []
    _stack_ret0 = []
    _done0 = False
    _ret0 = None
    total = 0.0
    _brk0 = False
    for i in range(8):
        _cond0 = not _brk0
        _stack_cond0.append(_cond0)
        if _cond0:
            _cont0 = False
            _cond1 = i % 3 == 2
            if _cond1:
                _cont0 = True
            _cond2 = not _cont0
            _stack_cond2.append(_cond2)
            if _cond2:
                _t0 = x * i
                _stack_t0.append(_t0)
                _t1 = np.sin(_t0)
                _stack_t1.append(runtime.shape_of(_t1))
                _t2 = np.sum(_t1)
                _stack_t2.append(runtime.shape_of(_t2))
                _t3 = total + _t2
                _stack_total.append(runtime.shape_of(total))
                total = _t3
                _cond3 = total > 2.0
                if _cond3:
                    _brk0 = True
    _cond4 = total < 0
    if _cond4:
        _stack_ret0.append(runtime.shape_of(_ret0))
        _ret0 = -total
        _done0 = True
    _cond5 = not _done0
    if _cond5:
        _stack_ret0.append(runtime.shape_of(_ret0))
        _ret0 = total * 2
    b_ret0 = runtime.grad_seed(_ret0)
    if _cond5:
        btotal = b_ret0 * 2
        _ret0 = _stack_ret0.pop()
        b_ret0 = runtime.zeros_like(_ret0)
    else:
        btotal = runtime.zeros_like(total)
    if _cond4:
        btotal = btotal + -b_ret0
        _ret0 = _stack_ret0.pop()
    bx = runtime.zeros_like(x)
    for i in reversed(range(8)):
        _cond0 = _stack_cond0.pop()
        if _cond0:
            _cond2 = _stack_cond2.pop()
            if _cond2:
                _t2 = _stack_t2.pop()
                _t1 = _stack_t1.pop()
                _t0 = _stack_t0.pop()
                b_t3 = btotal
                total = _stack_total.pop()
                btotal = runtime.unbroadcast(b_t3, total)
                b_t2 = runtime.unbroadcast(b_t3, _t2)
                b_t1 = runtime.unreduce(b_t2, _t1)
                b_t0 = b_t1 * np.cos(_t0)
                bx = bx + runtime.unbroadcast(b_t0 * i, x)
    return runtime.as_grad(bx, x)
