"""The log-likelihood of a discrete hidden Markov model, by the forward algorithm in log space;
parameters are unnormalised log-probabilities."""

import numpy as np


def logsumexp(a, axis=None, keepdims=False):
    a_max = np.max(a, axis=axis, keepdims=True)
    out = np.log(np.sum(np.exp(a - a_max), axis=axis, keepdims=True)) + a_max
    return out if keepdims else np.squeeze(out, axis=axis)


def normalized(params):
    log_pi = params["initial"] - logsumexp(params["initial"])
    log_A = params["transition"] - logsumexp(params["transition"], axis=1, keepdims=True)
    log_B = params["emission"] - logsumexp(params["emission"], axis=1, keepdims=True)
    return log_pi, log_A, log_B


def hmm_log_likelihood(params, observations):
    log_pi, log_A, log_B = normalized(params)
    log_alpha = log_pi + log_B[:, observations[0]]
    for obs in observations[1:]:
        log_alpha = logsumexp(log_alpha[:, None] + log_A, axis=0) + log_B[:, obs]
    return logsumexp(log_alpha)


def loss(params, observations):
    return -hmm_log_likelihood(params, observations) / len(observations)


def example(rng):
    num_states, num_symbols = 3, 4
    params = {
        "initial": rng.normal(size=num_states),
        "transition": rng.normal(size=(num_states, num_states)),
        "emission": rng.normal(size=(num_states, num_symbols)),
    }
    observations = rng.integers(0, num_symbols, size=12)
    return params, observations
