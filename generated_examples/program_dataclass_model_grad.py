# Emitted by srcdiff from tests/programs/dataclass_model.py (function loss, mode grad, wrt=(0,)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
"""Gradient of generated_examples.dataclass_model.loss with respect to model.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime


def dloss(model, inputs, targets, config):
    _t0, predict_saved = fwd_predict(model, inputs)
    residuals = _t0 - targets
    _t1 = model.W1
    _t2 = _t1 ** 2
    _t3 = np.sum(_t2)
    _t4 = model.W2
    _t5 = _t4 ** 2
    _t6 = np.sum(_t5)
    _t7 = _t3 + _t6
    penalty = config.weight_decay * _t7
    _t8 = residuals ** 2
    _t9 = np.mean(_t8)
    _t10 = _t9 + penalty
    b_t10 = runtime.grad_seed(_t10)
    b_t9 = runtime.unbroadcast(b_t10, _t9)
    bpenalty = runtime.unbroadcast(b_t10, penalty)
    b_t8 = runtime.mean_grad(b_t9, _t8)
    bresiduals = b_t8 * 2 * residuals
    b_t7 = runtime.unbroadcast(bpenalty * config.weight_decay, _t7)
    b_t5 = runtime.unreduce(b_t7, _t5)
    b_t4 = b_t5 * 2 * _t4
    bmodel = runtime.field_grad(b_t4, model, 'W2')
    b_t2 = runtime.unreduce(b_t7, _t2)
    b_t1 = b_t2 * 2 * _t1
    bmodel += runtime.field_grad(b_t1, model, 'W1')
    b_t0 = runtime.unbroadcast(bresiduals, _t0)
    predict_grads = bwd_predict(b_t0, predict_saved)
    bmodel += predict_grads[0]
    return runtime.as_grad(bmodel, model)


def fwd_predict(self, inputs):
    _t0 = self.W1
    _t1 = inputs @ _t0
    _t2 = self.b1
    _t3 = _t1 + _t2
    hidden = np.tanh(_t3)
    _t4 = self.W2
    _t5 = hidden @ _t4
    _t6 = self.b2
    _t7 = _t5 + _t6
    return _t7, [_t0, runtime.shape_of(_t1), runtime.shape_of(_t2), _t4, runtime.shape_of(_t5),
        runtime.shape_of(_t6), hidden, inputs, self]


def bwd_predict(b_t7, saved):
    _t0, _t1, _t2, _t4, _t5, _t6, hidden, inputs, self = saved
    saved.clear()
    b_t5 = runtime.unbroadcast(b_t7, _t5)
    del _t5
    b_t6 = runtime.unbroadcast(b_t7, _t6)
    del _t6
    bself = runtime.field_grad(b_t6, self, 'b2')
    del b_t6
    bhidden = runtime.matmul_grad(b_t5, hidden, _t4, 0)
    b_t4 = runtime.matmul_grad(b_t5, hidden, _t4, 1)
    del _t4, b_t5
    bself += runtime.field_grad(b_t4, self, 'W2')
    del b_t4
    b_t3 = bhidden * (1 - hidden * hidden)
    del bhidden, hidden
    b_t1 = runtime.unbroadcast(b_t3, _t1)
    del _t1
    b_t2 = runtime.unbroadcast(b_t3, _t2)
    del _t2, b_t3
    bself += runtime.field_grad(b_t2, self, 'b1')
    del b_t2
    b_t0 = runtime.matmul_grad(b_t1, inputs, _t0, 1)
    del _t0, b_t1, inputs
    bself += runtime.field_grad(b_t0, self, 'W1')
    del b_t0, self
    return bself,
