"""Collaborative filtering by matrix factorisation: ratings ~ user factors . item factors +
biases, fitted only where a rating is observed (a boolean mask), with L2 regularisation."""

import numpy as np


def predict(factors):
    U, V = factors["users"], factors["items"]
    return (
        U @ V.T + factors["user_bias"][:, None] + factors["item_bias"][None, :] + factors["global"]
    )


def loss(factors, ratings, observed, reg=0.1):
    errors = np.where(observed, ratings - predict(factors), 0.0)
    fit = np.sum(errors**2) / observed.sum()
    penalty = sum(np.sum(factors[name] ** 2) for name in ("users", "items"))
    return fit + reg * penalty / observed.size


def example(rng, num_users=6, num_items=5, rank=2):
    true_U, true_V = rng.normal(size=(num_users, rank)), rng.normal(size=(num_items, rank))
    ratings = true_U @ true_V.T + 0.1 * rng.normal(size=(num_users, num_items))
    observed = rng.random((num_users, num_items)) < 0.6
    ratings[~observed] = np.nan
    ratings = np.nan_to_num(ratings)
    factors = {
        "users": 0.1 * rng.normal(size=(num_users, rank)),
        "items": 0.1 * rng.normal(size=(num_items, rank)),
        "user_bias": np.zeros(num_users),
        "item_bias": np.zeros(num_items),
        "global": 0.0,
    }
    return factors, ratings, observed
