"""The log-likelihood of a linear-Gaussian state-space model by the Kalman filter (prediction
error decomposition); parameters: the transition matrix and the log noise variances."""

import numpy as np


def kalman_log_likelihood(A, C, Q, R, ys, m0, P0):
    m, P = m0, P0
    ll = 0.0
    for y in ys:
        # predict
        m = A @ m
        P = A @ P @ A.T + Q
        # update
        S = C @ P @ C.T + R
        v = y - C @ m
        K = P @ C.T @ np.linalg.inv(S)
        m = m + K @ v
        P = P - K @ S @ K.T
        sign, logdet = np.linalg.slogdet(S)
        ll += -0.5 * (logdet + v @ np.linalg.solve(S, v) + len(y) * np.log(2 * np.pi))
    return ll


def loss(params, C, ys):
    A = params["A"]
    Q = np.exp(params["log_q"]) * np.eye(A.shape[0])
    R = np.diag(np.exp(params["log_r"]))
    m0 = np.zeros(A.shape[0])
    P0 = np.eye(A.shape[0])
    return -kalman_log_likelihood(A, C, Q, R, ys, m0, P0)


def example(rng):
    params = {
        "A": np.array([[0.9, 0.1], [-0.1, 0.8]]) + 0.05 * rng.normal(size=(2, 2)),
        "log_q": -1.0,
        "log_r": np.array([-0.5, -0.7]),
    }
    C = rng.normal(size=(2, 2))
    ys = rng.normal(size=(6, 2))
    return params, C, ys
