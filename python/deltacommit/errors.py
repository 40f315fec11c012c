"""The exceptions deltacommit raises: one hierarchy under :class:`Error`.

Each carries the text the ``deltacommit`` CLI prints after ``error:`` (the
status code's name, then what was wrong: the table, the version, the cause),
``code`` (that name) and ``message`` (the text without it).

Where a Python builtin means the same, the class also derives from it, so
``except ValueError`` catches an :class:`InvalidArgumentError`.
"""

from __future__ import annotations

from typing import Optional

__all__ = [
    "Error",
    "InvalidArgumentError",
    "NotFoundError",
    "AlreadyExistsError",
    "FailedPreconditionError",
    "CredentialsError",
    "PermissionDeniedError",
    "UnauthenticatedError",
    "UnsupportedError",
    "DataLossError",
    "UnavailableError",
    "ResourceExhaustedError",
    "UnknownOutcomeError",
    "InternalError",
    "ConflictError",
    "DeltaCommitWarning",
]


class Error(Exception):
    """Any failure of deltacommit.

    ``code`` is the status code's name (``"InvalidArgument"``, ...) and
    ``message`` what went wrong; ``str(error)`` is ``"<code>: <message>"``,
    as the CLI prints it.
    """

    def __init__(self, message: str, code: str = "Unknown", text: Optional[str] = None):
        super().__init__(text if text is not None else f"{code}: {message}")
        self.code = code
        self.message = message


class InvalidArgumentError(Error, ValueError):
    """Bad input: a malformed action, option, schema or path, named."""


class NotFoundError(Error, LookupError):
    """The table (or a version, a file) does not exist."""


class AlreadyExistsError(Error):
    """The table already has a log (creating it again)."""


class FailedPreconditionError(Error):
    """The table is not in a state that allows the call (say, a version of a
    coordinated table not yet published)."""


class CredentialsError(Error):
    """The store, the commit service or the catalog refused the credentials:
    the message names where they came from and what to do."""


class PermissionDeniedError(CredentialsError, PermissionError):
    """Credentials were accepted but do not allow the call."""


class UnauthenticatedError(CredentialsError):
    """Credentials are missing, wrong or expired."""


class UnsupportedError(Error, NotImplementedError):
    """A table feature or a request this build cannot honour, named."""


class DataLossError(Error):
    """The log is corrupt or inconsistent (a commit that cannot be read)."""


class UnavailableError(Error):
    """A store or service could not be reached, or timed out; nothing was
    committed by this call."""


class ResourceExhaustedError(UnavailableError):
    """A store or service asked to slow down; retry later."""


class UnknownOutcomeError(Error):
    """A commit was sent but its reply was lost: it may have landed. Retry
    with the same ``app_id``/``app_version`` to find out safely."""


class InternalError(Error):
    """A failure of deltacommit itself."""


class ConflictError(Error):
    """A concurrent commit conflicts with this one (Delta's conflict rules).

    ``conflict_type`` is the conflict's name (``"ConcurrentAppend"``,
    ``"ConcurrentDeleteRead"``, ``"MetadataChanged"``, ...) and
    ``winning_version`` the version that won.
    """

    def __init__(self, message: str, conflict_type: str, winning_version: int, detail: str = ""):
        super().__init__(message, "Conflict")
        self.conflict_type = conflict_type
        self.winning_version = winning_version
        self.detail = detail


class DeltaCommitWarning(UserWarning):
    """Something that did not fail the call: an automatic checkpoint that
    could not be written, a commit published late, a table read around its
    coordinator."""


_BY_CODE = {
    "InvalidArgument": InvalidArgumentError,
    "NotFound": NotFoundError,
    "AlreadyExists": AlreadyExistsError,
    "FailedPrecondition": FailedPreconditionError,
    "PermissionDenied": PermissionDeniedError,
    "Unauthenticated": UnauthenticatedError,
    "Unimplemented": UnsupportedError,
    "DataLoss": DataLossError,
    "Unavailable": UnavailableError,
    "DeadlineExceeded": UnavailableError,
    "ResourceExhausted": ResourceExhaustedError,
    "Internal": InternalError,
    "UnknownOutcome": UnknownOutcomeError,
}


def _from_status(code: str, message: str, text: str) -> Error:
    """The exception for a failed C++ Status (called by the native module)."""
    return _BY_CODE.get(code, Error)(message, code, text)
