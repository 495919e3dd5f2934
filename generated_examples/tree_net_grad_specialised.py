# Emitted by srcdiff from generated_examples/tree_net.py (function tree_net, mode grad, wrt=(0,)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
# Specialised for the example's arguments: float64[4, 8], float64[5, 4], ((0, 1), (2, (3, 4))), float64[4]
"""Gradient of generated_examples.tree_net.tree_net with respect to W.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime


def dtree_net(W, embeddings, tree, target):
    _t0, node_saved = fwd_node_s1(W, embeddings, tree)
    _t1 = _t0 - target
    _t2 = _t1 ** 2
    _t3 = np.sum(_t2)
    b_t3 = runtime.grad_seed(_t3)
    b_t2 = runtime.unreduce(b_t3, _t2)
    b_t1 = b_t2 * 2 * _t1
    b_t0 = runtime.unbroadcast(b_t1, _t0)
    bW, = bwd_node_s1(b_t0, node_saved)
    return runtime.as_grad(bW, W)


def fwd_node_s1(W, embeddings, tree):
    _t4 = None
    left = None
    node_saved = None
    node_saved_1 = None
    right = None
    _cond0 = isinstance(tree, int)
    if _cond0:
        _result0 = embeddings[tree]
    else:
        _t0 = tree[0]
        _t1, node_saved = fwd_node(W, embeddings, _t0)
        _t2 = tree[1]
        _t3, node_saved_1 = fwd_node(W, embeddings, _t2)
        left = _t1
        right = _t3
        _t4 = np.concatenate([left, right])
        _t5 = W @ _t4
        _result0 = np.tanh(_t5)
    return _result0, [W, _cond0, _result0, _t4, runtime.shape_of(left), node_saved, node_saved_1,
        runtime.shape_of(right)]


def bwd_node_s1(b_result0, saved):
    W, _cond0, _result0, _t4, left, node_saved, node_saved_1, right = saved
    saved.clear()
    if _cond0:
        bW = np.zeros_like(W)
    else:
        b_t5 = b_result0 * (1 - _result0 * _result0)
        bW = runtime.matmul_grad(b_t5, W, _t4, 0)
        b_t4 = runtime.matmul_grad(b_t5, W, _t4, 1)
        bright = runtime.unconcatenate(b_t4, [left, right], 1)
        bleft = runtime.unconcatenate(b_t4, [left, right], 0)
        node_grads_1 = bwd_node(bright, node_saved_1)
        bW += node_grads_1[0]
        node_grads = bwd_node(bleft, node_saved)
        bW += node_grads[0]
    del W, _cond0, _result0, _t4, left, node_saved, node_saved_1, right
    return bW,


def bwd_node(b_result0, saved):
    W, _cond0, _result0, _t4, left, node_saved, node_saved_1, right = saved
    saved.clear()
    if _cond0:
        bW = runtime.zeros_like(W)
    else:
        b_t5 = b_result0 * (1 - _result0 * _result0)
        bW = runtime.matmul_grad(b_t5, W, _t4, 0)
        b_t4 = runtime.matmul_grad(b_t5, W, _t4, 1)
        bright = runtime.unconcatenate(b_t4, [left, right], 1)
        bleft = runtime.unconcatenate(b_t4, [left, right], 0)
        node_grads_1 = bwd_node(bright, node_saved_1)
        bW += node_grads_1[0]
        node_grads = bwd_node(bleft, node_saved)
        bW += node_grads[0]
    del W, _cond0, _result0, _t4, left, node_saved, node_saved_1, right
    return bW,


def fwd_node(W, embeddings, tree):
    _t4 = None
    left = None
    node_saved = None
    node_saved_1 = None
    right = None
    _cond0 = isinstance(tree, int)
    if _cond0:
        _result0 = embeddings[tree]
    else:
        _t0 = tree[0]
        _t1, node_saved = fwd_node(W, embeddings, _t0)
        _t2 = tree[1]
        _t3, node_saved_1 = fwd_node(W, embeddings, _t2)
        left = _t1
        right = _t3
        _t4 = np.concatenate([left, right])
        _t5 = W @ _t4
        _result0 = np.tanh(_t5)
    return _result0, [W, _cond0, _result0, _t4, runtime.shape_of(left), node_saved, node_saved_1,
        runtime.shape_of(right)]
