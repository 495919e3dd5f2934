"""A character-level recurrent network: one-hot sequences, shape (time, batch, alphabet)."""

import numpy as np


def logsumexp(x, axis=None, keepdims=False):
    biggest = np.max(x, axis=axis, keepdims=True)
    result = np.log(np.sum(np.exp(x - biggest), axis=axis, keepdims=True)) + biggest
    return result if keepdims else np.squeeze(result, axis=axis)


def init_params(rng, input_size, state_size, output_size, scale=0.3):
    return {
        "init hiddens": scale * rng.normal(size=(1, state_size)),
        "change": scale * rng.normal(size=(input_size + state_size + 1, state_size)),
        "predict": scale * rng.normal(size=(state_size + 1, output_size)),
    }


def concat_and_multiply(weights, *args):
    cat_state = np.hstack(args + (np.ones((args[0].shape[0], 1)),))
    return np.dot(cat_state, weights)


def rnn_predict(params, inputs):
    def update_rnn(input, hiddens):
        return np.tanh(concat_and_multiply(params["change"], input, hiddens))

    def hiddens_to_output_probs(hiddens):
        output = concat_and_multiply(params["predict"], hiddens)
        return output - logsumexp(output, axis=1, keepdims=True)

    num_sequences = inputs.shape[1]
    hiddens = np.repeat(params["init hiddens"], num_sequences, axis=0)
    output = [hiddens_to_output_probs(hiddens)]
    for input in inputs:
        hiddens = update_rnn(input, hiddens)
        output.append(hiddens_to_output_probs(hiddens))
    return output


def loss(params, inputs, targets):
    logprobs = rnn_predict(params, inputs)
    num_time_steps, num_examples, _ = inputs.shape
    loglik = 0.0
    for t in range(num_time_steps):
        loglik += np.sum(logprobs[t] * targets[t])
    return -loglik / (num_time_steps * num_examples)


def example(rng):
    alphabet, steps, batch = 5, 6, 3
    sequences = np.eye(alphabet)[rng.integers(0, alphabet, size=(steps + 1, batch))]
    params = init_params(rng, alphabet, 4, alphabet)
    return params, sequences[:-1], sequences[1:]
