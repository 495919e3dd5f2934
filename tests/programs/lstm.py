"""An LSTM language model: the next one-hot symbol from the ones so far."""

import numpy as np


def sigmoid(x):
    return 0.5 * (np.tanh(x / 2.0) + 1.0)


def logsumexp(x, axis=None, keepdims=False):
    biggest = np.max(x, axis=axis, keepdims=True)
    result = np.log(np.sum(np.exp(x - biggest), axis=axis, keepdims=True)) + biggest
    return result if keepdims else np.squeeze(result, axis=axis)


def init_params(rng, input_size, state_size, output_size, scale=0.3):
    def rand(*shape):
        return scale * rng.normal(size=shape)

    gate_size = input_size + state_size + 1
    return {
        "init cells": rand(1, state_size),
        "init hiddens": rand(1, state_size),
        "change": rand(gate_size, state_size),
        "forget": rand(gate_size, state_size),
        "ingate": rand(gate_size, state_size),
        "outgate": rand(gate_size, state_size),
        "predict": rand(state_size + 1, output_size),
    }


def lstm_predict(params, inputs):
    def concat_and_multiply(weights, *args):
        cat_state = np.hstack(args + (np.ones((args[0].shape[0], 1)),))
        return np.dot(cat_state, weights)

    def update_lstm(input, hiddens, cells):
        change = np.tanh(concat_and_multiply(params["change"], input, hiddens))
        forget = sigmoid(concat_and_multiply(params["forget"], input, hiddens))
        ingate = sigmoid(concat_and_multiply(params["ingate"], input, hiddens))
        outgate = sigmoid(concat_and_multiply(params["outgate"], input, hiddens))
        cells = cells * forget + ingate * change
        hiddens = outgate * np.tanh(cells)
        return hiddens, cells

    def hiddens_to_output_probs(hiddens):
        output = concat_and_multiply(params["predict"], hiddens)
        return output - logsumexp(output, axis=1, keepdims=True)

    num_sequences = inputs.shape[1]
    hiddens = np.repeat(params["init hiddens"], num_sequences, axis=0)
    cells = np.repeat(params["init cells"], num_sequences, axis=0)
    output = [hiddens_to_output_probs(hiddens)]
    for input in inputs:
        hiddens, cells = update_lstm(input, hiddens, cells)
        output.append(hiddens_to_output_probs(hiddens))
    return output


def loss(params, inputs, targets):
    logprobs = lstm_predict(params, inputs)
    loglik = sum(np.sum(logprob * target) for logprob, target in zip(logprobs, targets))
    num_time_steps, num_examples, _ = inputs.shape
    return -loglik / (num_time_steps * num_examples)


def example(rng):
    alphabet, steps, batch = 4, 5, 2
    sequences = np.eye(alphabet)[rng.integers(0, alphabet, size=(steps + 1, batch))]
    params = init_params(rng, alphabet, 3, alphabet)
    return params, sequences[:-1], sequences[1:]
