"""MAML (Finn et al. 2017) on sine-wave regression tasks: a few inner SGD steps on each task's
support set, with the inner gradient written by hand, then the query loss of the adapted
weights, averaged over tasks."""

import numpy as np


def forward(w, x):
    h = np.tanh(x @ w["W1"] + w["b1"])
    return h @ w["W2"] + w["b2"]


def mse_and_grad(w, x, y):
    h = np.tanh(x @ w["W1"] + w["b1"])
    pred = h @ w["W2"] + w["b2"]
    err = pred - y
    n = x.shape[0]
    d_pred = 2 * err / n
    d_h = d_pred @ w["W2"].T * (1 - h**2)
    grads = {
        "W2": h.T @ d_pred,
        "b2": d_pred.sum(0),
        "W1": x.T @ d_h,
        "b1": d_h.sum(0),
    }
    return np.mean(err**2), grads


def adapt(w, x, y, inner_lr, steps):
    for _ in range(steps):
        _, g = mse_and_grad(w, x, y)
        w = {k: w[k] - inner_lr * g[k] for k in w}
    return w


def loss(meta_w, tasks, inner_lr=0.1, steps=2):
    total = 0.0
    for x_s, y_s, x_q, y_q in tasks:
        fast = adapt(meta_w, x_s, y_s, inner_lr, steps)
        total = total + np.mean((forward(fast, x_q) - y_q) ** 2)
    return total / len(tasks)


def example(rng):
    H = 6
    w = {
        "W1": rng.normal(size=(1, H)),
        "b1": 0.1 * rng.normal(size=H),
        "W2": 0.3 * rng.normal(size=(H, 1)),
        "b2": np.zeros(1),
    }
    tasks = []
    for _ in range(3):
        amp, phase = rng.uniform(0.5, 2), rng.uniform(0, np.pi)
        xs = rng.uniform(-3, 3, size=(5, 1))
        xq = rng.uniform(-3, 3, size=(5, 1))
        tasks.append((xs, amp * np.sin(xs + phase), xq, amp * np.sin(xq + phase)))
    return w, tasks
