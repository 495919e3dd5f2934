"""Tuning a Hamiltonian Monte Carlo proposal: leapfrog steps move momentum by the gradient of
the potential (taken by srcdiff inside the loss), and the loss is the expected energy error
of the proposal, differentiated with respect to the log step size and log mass diagonal
(second-order: the gradient of a gradient)."""

import numpy as np

import srcdiff as nf


def potential(q, precision):
    return 0.5 * q @ precision @ q + 0.1 * np.sum(q**4)


grad_potential = nf.grad(potential)


def leapfrog(q, p, step, inverse_mass, precision, steps):
    p = p - 0.5 * step * grad_potential(q, precision)
    for _ in range(steps - 1):
        q = q + step * inverse_mass * p
        p = p - step * grad_potential(q, precision)
    q = q + step * inverse_mass * p
    p = p - 0.5 * step * grad_potential(q, precision)
    return q, p


def hamiltonian(q, p, inverse_mass, precision):
    return potential(q, precision) + 0.5 * np.sum(inverse_mass * p**2)


def loss(tuning, positions, momenta, precision, steps=3):
    step, inverse_mass = np.exp(tuning["log_step"]), np.exp(-tuning["log_mass"])
    total = 0.0
    for q, p in zip(positions, momenta):
        p = p * np.exp(0.5 * tuning["log_mass"])
        q_new, p_new = leapfrog(q, p, step, inverse_mass, precision, steps)
        energy_error = hamiltonian(q_new, p_new, inverse_mass, precision) - hamiltonian(
            q, p, inverse_mass, precision
        )
        total = total + energy_error**2
    return total / len(positions)


def example(rng, dims=2, chains=2):
    A = rng.normal(size=(dims, dims))
    precision = A @ A.T / dims + np.eye(dims)
    tuning = {"log_step": np.log(0.3), "log_mass": 0.1 * rng.normal(size=dims)}
    return tuning, rng.normal(size=(chains, dims)), rng.normal(size=(chains, dims)), precision
