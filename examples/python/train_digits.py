"""Trains a digit classifier on the UCI handwritten digits, written as a TensorFlow 1 script: the
only Tessera-specific line is the import. A 64-64-10 perceptron with ReLU, Adam on mini-batches
of 64; prints the loss and accuracy per epoch and the test accuracy at the end.

    PYTHONPATH=build/python python3 examples/python/train_digits.py --epochs 20
"""
import argparse
import gzip
import os
import sys

import numpy as np

import tessera.compat.v1 as tf

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "digits.csv.gz")


def load_digits(path):
    """Images (N x 64, scaled to 0..1) and labels (N) of the CSV (64 pixels, then the label)."""
    with gzip.open(path, "rt") as f:
        rows = np.loadtxt(f, delimiter=",", dtype=np.float32)
    return rows[:, :64] / 16.0, rows[:, 64].astype(np.int64)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=DATA)
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--learning-rate", type=float, default=0.005)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--min-test-accuracy", type=float, default=0.0,
                        help="exit 1 below this test accuracy")
    args = parser.parse_args()

    images, labels = load_digits(args.data)
    rng = np.random.default_rng(args.seed)
    order = rng.permutation(len(labels))
    split = int(0.8 * len(labels))
    train_x, train_y = images[order[:split]], labels[order[:split]]
    test_x, test_y = images[order[split:]], labels[order[split:]]

    x = tf.placeholder(tf.float32, [None, 64], name="pixels")
    y = tf.placeholder(tf.int64, [None], name="labels")
    w1 = tf.Variable(tf.truncated_normal([64, 64], stddev=0.1, seed=args.seed), name="w1")
    b1 = tf.Variable(tf.zeros([64]), name="b1")
    w2 = tf.Variable(tf.truncated_normal([64, 10], stddev=0.1, seed=args.seed + 2), name="w2")
    b2 = tf.Variable(tf.zeros([10]), name="b2")
    hidden = tf.nn.relu(tf.matmul(x, w1) + b1)
    logits = tf.nn.bias_add(tf.matmul(hidden, w2), b2)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), y), tf.float32))
    train = tf.train.AdamOptimizer(args.learning_rate).minimize(loss)

    with tf.Session() as session:
        session.run(tf.global_variables_initializer())
        for epoch in range(1, args.epochs + 1):
            permutation = rng.permutation(len(train_y))
            for start in range(0, len(train_y), args.batch):
                batch = permutation[start:start + args.batch]
                session.run(train, {x: train_x[batch], y: train_y[batch]})
            train_loss, train_accuracy = session.run([loss, accuracy], {x: train_x, y: train_y})
            print(f"epoch {epoch:3d}  loss {train_loss:.4f}  accuracy {train_accuracy:.3f}")
        test_accuracy = session.run(accuracy, {x: test_x, y: test_y})
    print(f"test accuracy {test_accuracy:.3f} on {len(test_y)} digits")
    return 0 if test_accuracy >= args.min_test_accuracy else 1


if __name__ == "__main__":
    sys.exit(main())
