"""A variational autoencoder for binary images, with a reparameterised Gaussian sample."""

import numpy as np


def relu(x):
    return np.maximum(0.0, x)


def init_net_params(rng, layer_sizes, scale=0.3):
    return [
        (scale * rng.normal(size=(m, n)), scale * rng.normal(size=n))
        for m, n in zip(layer_sizes[:-1], layer_sizes[1:])
    ]


def neural_net_predict(params, inputs):
    """The last layer is linear; hidden layers use relu."""
    for W, b in params:
        outputs = np.dot(inputs, W) + b
        inputs = relu(outputs)
    return outputs


def diag_gaussian_log_density(x, mu, log_std):
    return np.sum(
        -0.5 * ((x - mu) / np.exp(log_std)) ** 2 - log_std - 0.5 * np.log(2 * np.pi), axis=-1
    )


def unpack_gaussian_params(params):
    # First half of the outputs is the mean, second half the log standard deviation.
    D = np.shape(params)[-1] // 2
    mean, log_std = params[:, :D], params[:, D:]
    return mean, log_std


def sample_diag_gaussian(mean, log_std, noise):
    return noise * np.exp(log_std) + mean


def bernoulli_log_density(targets, unnormalized_logprobs):
    # targets are 0 or 1; log sigmoid(logit) for the 1s and log sigmoid(-logit) for the 0s.
    label_probabilities = -np.logaddexp(0, -unnormalized_logprobs * (2 * targets - 1))
    return np.sum(label_probabilities, axis=-1)


def loss(combined_params, images, noise):
    """Minus the evidence lower bound, averaged over the batch (one sample per image)."""
    encoder_params, decoder_params = combined_params
    q_means, q_log_stds = unpack_gaussian_params(neural_net_predict(encoder_params, images))
    latents = sample_diag_gaussian(q_means, q_log_stds, noise)
    q_latents = diag_gaussian_log_density(latents, q_means, q_log_stds)
    p_latents = diag_gaussian_log_density(latents, 0, 0)
    logits = neural_net_predict(decoder_params, latents)
    p_images = bernoulli_log_density(images, logits)
    return -np.mean(p_images + p_latents - q_latents)


def example(rng):
    latent_dim, data_dim, hidden = 2, 6, 5
    encoder = init_net_params(rng, [data_dim, hidden, 2 * latent_dim])
    decoder = init_net_params(rng, [latent_dim, hidden, data_dim])
    images = (rng.uniform(size=(4, data_dim)) > 0.5).astype(float)
    noise = rng.normal(size=(4, latent_dim))
    return (encoder, decoder), images, noise
