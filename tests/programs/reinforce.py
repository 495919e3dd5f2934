"""REINFORCE (Williams 1992) on a fixed batch of trajectories: a softmax policy over discrete
actions, returns-to-go with a discount and a mean baseline."""

import numpy as np


def softmax(z):
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def discounted_returns(rewards, gamma):
    returns = np.zeros_like(rewards)
    running = 0.0
    for t in reversed(range(len(rewards))):
        running = rewards[t] + gamma * running
        returns[t] = running
    return returns


def loss(theta, states, actions, rewards, gamma=0.99):
    """The surrogate whose gradient is the policy gradient estimate."""
    total = 0.0
    for episode in range(len(states)):
        probs = softmax(states[episode] @ theta)
        log_probs = np.log(probs[np.arange(len(actions[episode])), actions[episode]])
        returns = discounted_returns(rewards[episode], gamma)
        advantages = returns - returns.mean()
        total = total - np.sum(log_probs * advantages)
    return total / len(states)


def example(rng):
    n_episodes, horizon, obs_dim, n_actions = 3, 5, 4, 2
    theta = 0.1 * rng.normal(size=(obs_dim, n_actions))
    states = [rng.normal(size=(horizon, obs_dim)) for _ in range(n_episodes)]
    actions = [rng.integers(0, n_actions, size=horizon) for _ in range(n_episodes)]
    rewards = [rng.normal(size=horizon) for _ in range(n_episodes)]
    return theta, states, actions, rewards
