"""Compatibility layers: `tessera.compat.v1` is the TF1-style API."""
from tessera.compat import v1
