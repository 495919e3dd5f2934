"""Careful hand-written numpy backward passes: the bar srcdiff's emitted code is measured
against in tools/bench.py (and checked equal to it there and in the tests)."""

import numpy as np

from srcdiff.nn import conv2d, conv2d_input_grad, conv2d_weight_grad


def rnn_grad(w, b, h, xs):
    """Gradient of sum(h_T ** 2), h_t = tanh(w @ h_{t-1} + xs[t] + b), w.r.t. (w, b)."""
    hs = [h]
    for t in range(xs.shape[0]):
        h = np.tanh(w @ h + xs[t] + b)
        hs.append(h)
    dh = 2 * h
    dw, db = np.zeros_like(w), np.zeros_like(b)
    for t in range(xs.shape[0], 0, -1):
        da = dh * (1 - hs[t] * hs[t])
        db += da
        dw += np.outer(da, hs[t - 1])
        dh = w.T @ da
    return dw, db


def polynomial_grad(x, coefficients):
    """d/dx of Horner's rule."""
    total, dtotal = 0.0, 0.0
    for c in coefficients:
        dtotal = dtotal * x + total
        total = total * x + c
    return dtotal


def mlp_grad(w1, b1, w2, b2, x, y):
    """Gradient of mean((tanh(x @ w1 + b1) @ w2 + b2 - y) ** 2) w.r.t. (w1, b1, w2, b2)."""
    h = np.tanh(x @ w1 + b1)
    out = h @ w2 + b2
    dout = 2 * (out - y) / out.size
    dw2, db2 = h.T @ dout, dout.sum(axis=0)
    da = (dout @ w2.T) * (1 - h * h)
    return x.T @ da, da.sum(axis=0), dw2, db2


# --- ResNet (the architecture of srcdiff.resnet, training mode) --------------------------------


# The convolution's kernels are nn's (see nn.conv2d's adjoint), so that what is compared is
# everything around them: what srcdiff saves, frees and adds up.
def _conv(x, w, stride, padding):
    return conv2d(x, w, stride, padding), (x, w, stride, padding)


def _conv_back(g, cache):
    return conv2d_input_grad(g, *cache), conv2d_weight_grad(g, *cache)


def _bn(x, gamma, beta, eps=1e-5):
    mean = x.mean(axis=(0, 2, 3), keepdims=True)
    inv = 1 / np.sqrt(x.var(axis=(0, 2, 3), keepdims=True) + eps)
    xhat = (x - mean) * inv
    return xhat * gamma.reshape(1, -1, 1, 1) + beta.reshape(1, -1, 1, 1), (xhat, inv, gamma)


def _bn_back(g, cache):
    xhat, inv, gamma = cache
    n = g.size // g.shape[1]
    dbeta = g.sum(axis=(0, 2, 3))
    dgamma = (g * xhat).sum(axis=(0, 2, 3))
    dxhat = g * gamma.reshape(1, -1, 1, 1)
    dx = (
        inv
        / n
        * (
            n * dxhat
            - dxhat.sum(axis=(0, 2, 3), keepdims=True)
            - xhat * (dxhat * xhat).sum(axis=(0, 2, 3), keepdims=True)
        )
    )
    return dx, dgamma, dbeta


def resnet_loss_and_grad(params, x, y):
    """Loss and gradient of srcdiff.resnet.loss, by hand."""
    stem = params["stem"]
    h, c_conv = _conv(x, stem["w"], 1, 1)
    h, c_bn = _bn(h, stem["gamma"], stem["beta"])
    stem_cache = (c_conv, c_bn, h)
    h = np.maximum(h, 0)
    caches = []
    for p in params["blocks"]:
        stride = 1 if h.shape[1] == p["w1"].shape[0] else 2
        inp = h
        a, c1 = _conv(inp, p["w1"], stride, 1)
        a, b1 = _bn(a, p["g1"], p["b1"])
        r1 = a > 0
        a = a * r1
        a, c2 = _conv(a, p["w2"], 1, 1)
        a, b2 = _bn(a, p["g2"], p["b2"])
        shortcut = inp
        if stride == 2:
            shortcut = inp[:, :, ::2, ::2]
            shortcut = np.concatenate([shortcut, np.zeros_like(shortcut)], axis=1)
        out = a + shortcut
        r2 = out > 0
        h = out * r2
        caches.append((stride, inp.shape, c1, b1, r1, c2, b2, r2))
    pooled = h.mean(axis=(2, 3))
    logits = pooled @ params["head"]["w"] + params["head"]["b"]
    shifted = logits - logits.max(axis=1, keepdims=True)
    probs = np.exp(shifted)
    probs /= probs.sum(axis=1, keepdims=True)
    n = x.shape[0]
    loss = -np.mean(np.log(probs[np.arange(n), y]))
    dlogits = probs
    dlogits[np.arange(n), y] -= 1
    dlogits /= n
    grads = {"head": {"w": pooled.T @ dlogits, "b": dlogits.sum(axis=0)}, "blocks": []}
    dh = (dlogits @ params["head"]["w"].T)[:, :, None, None] / (h.shape[2] * h.shape[3])
    dh = np.broadcast_to(dh, h.shape)
    for p, (stride, in_shape, c1, b1, r1, c2, b2, r2) in zip(params["blocks"][::-1], caches[::-1]):
        dout = dh * r2
        da, dg2, db2 = _bn_back(dout, b2)
        da, dw2 = _conv_back(da, c2)
        da = da * r1
        da, dg1, db1 = _bn_back(da, b1)
        dinp, dw1 = _conv_back(da, c1)
        if stride == 2:
            dinp = dinp.copy()
            dinp[:, :, ::2, ::2] += dout[:, : in_shape[1]]
        else:
            dinp = dinp + dout
        grads["blocks"].append({"w1": dw1, "g1": dg1, "b1": db1, "w2": dw2, "g2": dg2, "b2": db2})
        dh = dinp
    grads["blocks"].reverse()
    c_conv, c_bn, pre = stem_cache
    dh = dh * (pre > 0)
    dh, dgamma, dbeta = _bn_back(dh, c_bn)
    _, dw = _conv_back(dh, c_conv)
    grads["stem"] = {"w": dw, "gamma": dgamma, "beta": dbeta}
    return loss, grads
