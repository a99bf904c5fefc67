"""itq_projection: sign(x W + b) = sign((x − μ) P R), and ITQ lowers the quantization error."""

import numpy as np

from keras_sentemb.training.itq_initialisation import itq_projection

RNG = np.random.default_rng(0)
# Anisotropic data with an offset, like sentence embeddings.
X = (RNG.normal(size=(2000, 24)) * np.linspace(3, 0.2, 24) + 1.5).astype(np.float32)


def quantization_error(x, kernel, bias):
    v = x @ kernel + bias
    return float(np.mean((np.sign(v) - v / np.abs(v).mean()) ** 2))


def test_bias_centres_the_data_so_each_bit_is_balanced():
    kernel, bias = itq_projection(X, bits=16)
    ones = ((X @ kernel + bias) > 0).mean(axis=0)
    assert kernel.shape == (24, 16) and np.all(np.abs(ones - 0.5) < 0.1)


def test_iterations_lower_the_quantization_error_of_a_random_rotation():
    assert quantization_error(X, *itq_projection(X, 16, iterations=50)) < quantization_error(
        X, *itq_projection(X, 16, iterations=0)
    )


def test_the_kernel_is_an_orthonormal_basis_of_the_top_principal_directions():
    kernel, _ = itq_projection(X, bits=8, iterations=10)
    np.testing.assert_allclose(kernel.T @ kernel, np.eye(8), atol=1e-4)
    centred = X - X.mean(0)
    top = np.linalg.svd(centred, full_matrices=False)[2][:8].T
    np.testing.assert_allclose(np.linalg.norm(top.T @ kernel, axis=0), 1.0, atol=1e-3)  # same span


def test_more_bits_than_dimensions_fall_back_to_centred_random_hyperplanes():
    kernel, bias = itq_projection(X, bits=64, seed=1)
    assert kernel.shape == (24, 64)
    np.testing.assert_allclose(bias, -X.mean(0) @ kernel, rtol=1e-4, atol=1e-5)
