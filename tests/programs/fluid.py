"""Smoke in a periodic box, stirred by an initial velocity field: semi-Lagrangian advection
and a Jacobi pressure projection (a small version of Stam's stable fluids)."""

import numpy as np


def project(vx, vy, num_iterations=8):
    """Make the velocity field (nearly) divergence-free."""
    h = 1.0 / vx.shape[0]
    div = (
        -0.5
        * h
        * (
            np.roll(vx, -1, axis=0)
            - np.roll(vx, 1, axis=0)
            + np.roll(vy, -1, axis=1)
            - np.roll(vy, 1, axis=1)
        )
    )
    p = np.zeros(vx.shape)
    for k in range(num_iterations):
        p = (
            div
            + np.roll(p, 1, axis=0)
            + np.roll(p, -1, axis=0)
            + np.roll(p, 1, axis=1)
            + np.roll(p, -1, axis=1)
        ) / 4.0
    vx = vx - 0.5 * (np.roll(p, -1, axis=0) - np.roll(p, 1, axis=0)) / h
    vy = vy - 0.5 * (np.roll(p, -1, axis=1) - np.roll(p, 1, axis=1)) / h
    return vx, vy


def advect(f, vx, vy):
    """Move field f along the velocity field, by bilinear interpolation at the departure
    points."""
    rows, cols = f.shape
    cell_ys, cell_xs = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    center_xs = (cell_xs - vx).ravel()
    center_ys = (cell_ys - vy).ravel()

    left_ix = np.floor(center_xs).astype(int)
    top_ix = np.floor(center_ys).astype(int)
    rw = center_xs - left_ix
    bw = center_ys - top_ix
    left_ix = np.mod(left_ix, cols)
    right_ix = np.mod(left_ix + 1, cols)
    top_ix = np.mod(top_ix, rows)
    bot_ix = np.mod(top_ix + 1, rows)

    flat_f = (1 - rw) * ((1 - bw) * f[top_ix, left_ix] + bw * f[bot_ix, left_ix]) + rw * (
        (1 - bw) * f[top_ix, right_ix] + bw * f[bot_ix, right_ix]
    )
    return np.reshape(flat_f, (rows, cols))


def simulate(vx, vy, smoke, num_time_steps):
    for t in range(num_time_steps):
        vx_updated = advect(vx, vx, vy)
        vy_updated = advect(vy, vx, vy)
        vx, vy = project(vx_updated, vy_updated)
        smoke = advect(smoke, vx, vy)
    return smoke


def loss(init_velocity, smoke, target, num_time_steps=3):
    """How far the smoke ends from the target picture."""
    vx, vy = init_velocity[0], init_velocity[1]
    final_smoke = simulate(vx, vy, smoke, num_time_steps)
    return np.mean((final_smoke - target) ** 2)


def example(rng):
    size = 6
    ys, xs = np.meshgrid(np.arange(size), np.arange(size), indexing="ij")
    smoke = np.exp(-((xs - 2.0) ** 2 + (ys - 2.0) ** 2) / 2.0)
    target = np.exp(-((xs - 3.5) ** 2 + (ys - 3.0) ** 2) / 2.0)
    init_velocity = 0.4 * rng.normal(size=(2, size, size))
    return init_velocity, smoke, target
