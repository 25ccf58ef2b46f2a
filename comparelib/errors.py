"""Exceptions whose messages a user can act on.

Pages show ``str(exc)`` in ``st.error``; the CLI prints it on one line and exits 2. So every
message says what was wrong and what to do, and never contains a token.
"""

from __future__ import annotations

from typing import Literal

Severity = Literal["error", "warning", "info"]
"""How bad a finding is (wiring lint, dump audit): what is not an exception but must still be said."""


class CompareError(Exception):
    """Base class: anything the user can fix or should be told about."""


class InputError(CompareError):
    """Bad user input: a URL, path, number or option that cannot be used."""


class ConfigError(CompareError):
    """A model config that is unsupported, incomplete or has absurd values."""


class UnsupportedArchitectureError(ConfigError):
    """A config of an architecture the parameter counter has no rules for. The message is one short sentence;
    ``detail`` lists the architectures it knows (the CLI appends it, the pages put it in an expander), so the
    answer is not pushed down by a list of two dozen class names."""

    def __init__(self, message: str, *, architecture: str, supported: tuple[str, ...]) -> None:
        super().__init__(message)
        self.architecture = architecture
        self.supported = supported

    @property
    def detail(self) -> str:
        return "the parameter counter knows: " + ", ".join(self.supported)


class HubError(CompareError):
    """The Hub (or a mirror) could not give us what we asked for."""


class HostNotAllowedError(HubError):
    """A pasted URL points at a host that is not a Hugging Face Hub; nothing was fetched."""


class HubAccessError(HubError):
    """The Hub would not show a repository: not found (or private, read without a token that can see it) or
    gated. ``repo_id`` and ``repo_type`` name it and ``token_given`` says whether a token was used, so a page can
    say which of its inputs could not be read and point at its own token field (the message names HF_TOKEN)."""

    def __init__(
        self, message: str, *, repo_id: str | None = None, repo_type: str = "model", token_given: bool = False
    ) -> None:
        super().__init__(message)
        self.repo_id = repo_id
        self.repo_type = repo_type
        self.token_given = token_given


class RepoNotFoundError(HubAccessError):
    """The repository does not exist, or is private and no token was given."""


class GatedRepoError(HubAccessError):
    """The repository is gated: the user must accept its terms and set HF_TOKEN."""


class RevisionNotFoundError(HubError):
    """The branch, tag or commit does not exist in the repository."""


class EntryNotFoundError(HubError):
    """A file (config.json, README.md, ...) is not in the repository."""


class OfflineError(HubError):
    """Offline (HF_HUB_OFFLINE or no network) and the file is not in the local cache."""


class DataError(CompareError):
    """A dataset or hidden-state dump that cannot be read or audited."""


class UnsafeFileError(DataError):
    """A file that would need arbitrary unpickling; refused, never loaded."""


class BenchError(CompareError):
    """A benchmark that cannot start (bad endpoint, unreachable server, bad options)."""


class StoreError(CompareError):
    """The results database cannot be opened or written."""


class LimitError(DataError):
    """An input over one of the caps in ``comparelib.limits``; the message names the cap and its variable."""


class LocalPathRefusedError(CompareError):
    """A typed name that is a path on this server and refused: a symbolic link in the data root that leads out
    of it, or the uploads folder. Not an InputError on purpose: the readers that take a name they cannot use
    as a path for a Hub id (drafts, tokenizers, datasets) catch InputError, and then answered a link in the
    root with "HTTP 404 ... try again later" (and sent ``uploads/<folder>`` to the Hub)."""


class OutsideDataRootError(InputError):
    """A server-side path that resolves outside SPECDRAFT_DATA_ROOT; nothing about it was read."""
