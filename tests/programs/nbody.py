"""A gravitational n-body simulation by velocity Verlet, unrolled over time steps; loss: the
distance of the final positions from targets, differentiated with respect to the initial
velocities and the masses (the shooting method)."""

import numpy as np

G = 1.0
SOFTENING = 0.1


def accelerations(positions, masses):
    n = positions.shape[0]
    acc = np.zeros_like(positions)
    for i in range(n):
        for j in range(n):
            if i != j:
                r = positions[j] - positions[i]
                dist3 = (np.sum(r**2) + SOFTENING**2) ** 1.5
                acc[i] += G * masses[j] * r / dist3
    return acc


def simulate(positions, velocities, masses, dt, steps):
    a = accelerations(positions, masses)
    for _ in range(steps):
        velocities = velocities + 0.5 * dt * a
        positions = positions + dt * velocities
        a = accelerations(positions, masses)
        velocities = velocities + 0.5 * dt * a
    return positions, velocities


def loss(state, positions, targets, dt=0.05, steps=6):
    final_positions, _ = simulate(positions, state["velocities"], state["masses"], dt, steps)
    return np.sum((final_positions - targets) ** 2)


def example(rng, n=3):
    positions = rng.normal(size=(n, 2))
    state = {"velocities": 0.3 * rng.normal(size=(n, 2)), "masses": 1 + 0.2 * rng.random(n)}
    targets = positions + 0.2 * rng.normal(size=(n, 2))
    return state, positions, targets
