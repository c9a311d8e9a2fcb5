"""tessera.compat.v1: TF1-style scripts with placeholders, variables, gradients and optimizers."""
import os
import subprocess
import sys

import numpy as np
import pytest

import tessera.compat.v1 as tf


def test_variables_assign_and_initializers():
    v = tf.Variable([1.0, 2.0], name="v")
    w = tf.Variable(tf.zeros([2]), name="v")  # the name is made unique
    assert v.op.name == "v" and w.op.name == "v_1"
    inc = v.assign_add([10.0, 20.0])
    with tf.Session() as session:
        session.run(tf.global_variables_initializer())
        before = session.run(v)
        np.testing.assert_array_equal(before, [1, 2])
        session.run(inc)
        np.testing.assert_array_equal(before, [1, 2])  # a fetched value is the caller's own copy
        before[0] = 100.0  # and writing it leaves the variable alone
        np.testing.assert_array_equal(session.run(v), [11, 22])
        np.testing.assert_array_equal(session.run(v + 1.0), [12, 23])
        np.testing.assert_array_equal(session.run(w), [0, 0])


def test_gradients():
    x = tf.placeholder(tf.float32, [3], name="x")
    y = tf.reduce_sum(x * x)
    (dx,) = tf.gradients(y, [x])
    (weighted,) = tf.gradients(x * x, [x], grad_ys=[tf.constant([1.0, 2.0, 3.0])],
                               name="weighted")
    with tf.Session() as session:
        grad, weighted_grad = session.run([dx, weighted], {x: [1.0, -2.0, 0.5]})
    np.testing.assert_allclose(grad, [2.0, -4.0, 1.0])
    np.testing.assert_allclose(weighted_grad, [2.0, -8.0, 3.0])
    assert weighted.name.startswith("weighted/")


@pytest.mark.parametrize("make_optimizer", [
    lambda: tf.train.GradientDescentOptimizer(0.1),
    lambda: tf.train.MomentumOptimizer(0.05, 0.9),
    lambda: tf.train.AdamOptimizer(0.1),
])
def test_optimizers_minimize_a_quadratic(make_optimizer):
    w = tf.Variable([5.0, -3.0], name="w")
    loss = tf.reduce_sum(tf.square(w - tf.constant([1.0, 2.0])))
    step = make_optimizer().minimize(loss)
    with tf.Session() as session:
        session.run(tf.global_variables_initializer())
        for _ in range(300):
            session.run(step)
        np.testing.assert_allclose(session.run(w), [1.0, 2.0], atol=1e-2)


def test_nn_and_math():
    logits = tf.constant([[2.0, 1.0, 0.1], [0.5, 2.5, 0.3]])
    labels = tf.constant([0, 1], dtype=tf.int64)
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    probabilities = tf.nn.softmax(logits)
    predicted = tf.argmax(logits, 1)
    with tf.Session() as session:
        loss_value, p, classes = session.run([loss, probabilities, predicted])
    expected = -np.log(np.exp([2.0, 2.5]) / np.exp([[2.0, 1.0, 0.1], [0.5, 2.5, 0.3]]).sum(1))
    np.testing.assert_allclose(loss_value, expected, rtol=1e-5)
    np.testing.assert_allclose(p.sum(axis=1), [1, 1], rtol=1e-6)
    np.testing.assert_array_equal(classes, [0, 1])


def test_the_digits_script_trains(source_dir):
    script = os.path.join(source_dir, "examples", "python", "train_digits.py")
    result = subprocess.run([sys.executable, script, "--epochs", "15", "--min-test-accuracy",
                             "0.9"], capture_output=True, text=True, timeout=600, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "test accuracy" in result.stdout
