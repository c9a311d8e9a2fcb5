"""Errors raised by Tessera, one class per TensorFlow status code (the names of tf.errors)."""


class OpError(Exception):
    """An error from the runtime: `code` is the TensorFlow status code, `message` its text."""

    code = 2

    def __init__(self, message, code=None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


class CancelledError(OpError):
    code = 1


class UnknownError(OpError):
    code = 2


class InvalidArgumentError(OpError):
    code = 3


class DeadlineExceededError(OpError):
    code = 4


class NotFoundError(OpError):
    code = 5


class AlreadyExistsError(OpError):
    code = 6


class PermissionDeniedError(OpError):
    code = 7


class ResourceExhaustedError(OpError):
    code = 8


class FailedPreconditionError(OpError):
    code = 9


class AbortedError(OpError):
    code = 10


class OutOfRangeError(OpError):
    code = 11


class UnimplementedError(OpError):
    code = 12


class InternalError(OpError):
    code = 13


class UnavailableError(OpError):
    code = 14


class DataLossError(OpError):
    code = 15


class UnauthenticatedError(OpError):
    code = 16


_BY_CODE = {cls.code: cls for cls in (
    CancelledError, UnknownError, InvalidArgumentError, DeadlineExceededError, NotFoundError,
    AlreadyExistsError, PermissionDeniedError, ResourceExhaustedError, FailedPreconditionError,
    AbortedError, OutOfRangeError, UnimplementedError, InternalError, UnavailableError,
    DataLossError, UnauthenticatedError)}


def from_code(code, message):
    """The exception for a status code (UnknownError for a code without a class)."""
    cls = _BY_CODE.get(code, UnknownError)
    return cls(message, code)
