"""Your draft: the one draft the app is about, with the training data and benchmark runs attached to it.

Chosen once (sidebar or Overview) and carried in the page URL as query parameters, so every page
(Overview, Compare, Live benchmark, Acceptance vs data) starts from the same draft and a link
reproduces the view. Only names travel in the URL: the source, the name its training volume is
stored under and its run group; never a token.

URL parameters (all optional; none means the built-in example):

``draft``
    a Hub URL (any form), ``org/name[@rev]``, a local folder, ``registry:org/name`` or
    ``example:own-kimi-k2.5-draft``
``draft_vol``
    the draft name its training volume is stored under (a Dataset audit's "attach")
``draft_samples``
    training samples typed in, when no audit is stored
``draft_group``
    the run group of its live benchmarks
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from comparelib import redact
from comparelib.errors import CompareError, InputError
from comparelib.models import hub, registry, sources

if TYPE_CHECKING:  # the sidebar parses a draft's name before the page loads comparison (and what it loads)
    from comparelib.models import comparison

EXAMPLE_SOURCE = sources.EXAMPLE_OWN
EXAMPLE_GROUP = "example-kimi-k2.5"
EXAMPLE_VOLUME = "example: own Kimi-K2.5 draft"
MAX_FIELD = 500  # characters in one URL parameter: a Hub URL with a revision fits easily
MAX_SAMPLES = 10**13
PARAMS = ("draft", "draft_vol", "draft_samples", "draft_group")


@dataclass(frozen=True)
class OwnDraft:
    """The user's draft: where it comes from, and the audits and runs attached to it (by name)."""

    source: str = EXAMPLE_SOURCE
    volume: str | None = None  # the draft name its training volume is stored under
    samples: int | None = None  # training samples typed in (used when ``volume`` is not set)
    group: str | None = None  # the run group of its benchmarks

    @property
    def kind(self) -> str:
        """example | registry | local | hub."""
        if self.source == EXAMPLE_SOURCE:
            return "example"
        if self.source.startswith(sources.REGISTRY_PREFIX):
            return "registry"
        if self.source.startswith(("/", "~", "./", "../")) or sources.is_local_path(self.source):
            return "local"
        return "hub"

    @property
    def is_example(self) -> bool:
        return self.kind == "example"

    @property
    def short(self) -> str:
        """A name for headings: the example's name, a registry id, or the source as pasted."""
        if self.is_example:
            return "example: own Kimi-K2.5 draft"
        if self.kind == "registry":
            return self.source[len(sources.REGISTRY_PREFIX) :]
        return self.source

    @property
    def name(self) -> str:
        """The draft's name for stored attachments: the Hub repo id (not the pasted URL), a folder's name."""
        if self.kind == "hub":
            repo = _repo_id(self.source)
            if repo:
                return repo
        if self.kind == "local":
            return self.source.rstrip("/").rsplit("/", 1)[-1] or self.source
        return self.short

    @property
    def uses_example_data(self) -> bool:
        """Any of its attachments is the built-in example's."""
        return self.is_example or self.group == EXAMPLE_GROUP or self.volume == EXAMPLE_VOLUME

    def with_(self, **changes: Any) -> OwnDraft:
        return replace(self, **changes)

    # -- URL

    def to_query(self) -> dict[str, str]:
        """Query parameters for this draft (nothing for the untouched example default)."""
        out: dict[str, str] = {}
        if self == DEFAULT:
            return out
        out["draft"] = self.source
        if self.volume:
            out["draft_vol"] = self.volume
        if self.samples is not None:
            out["draft_samples"] = str(self.samples)
        if self.group:
            out["draft_group"] = self.group
        return out

    @classmethod
    def from_query(cls, params: Mapping[str, Any]) -> OwnDraft:
        """The draft the URL names; DEFAULT when it names none. InputError for a malformed value."""

        def one(key: str) -> str | None:
            value = params.get(key)
            if isinstance(value, (list, tuple)):
                value = value[-1] if value else None
            if value is None:
                return None
            text = str(value).strip()
            if len(text) > MAX_FIELD:
                raise InputError(f"the link's {key} is longer than {MAX_FIELD} characters; paste the draft again")
            return text or None

        source = one("draft")
        if source is None:
            return DEFAULT
        return cls.parse(source, volume=one("draft_vol"), samples=one("draft_samples"), group=one("draft_group"))

    @classmethod
    def parse(
        cls, source: str, *, volume: str | None = None, samples: int | str | None = None, group: str | None = None
    ) -> OwnDraft:
        """Check and normalise what a user typed: credentials masked, registry ids and example names recognised."""
        text = (source or "").strip()
        if not text:
            raise InputError("no draft given: paste a Hub URL, org/name, a local folder, or a registry id")
        if len(text) > MAX_FIELD:
            raise InputError(f"the draft reference is longer than {MAX_FIELD} characters")
        text = redact.strip_userinfo(text)  # user:password@ never travels in a link
        if text.lower() in ("example", "example:", EXAMPLE_SOURCE):
            text = EXAMPLE_SOURCE
        elif text.startswith(sources.EXAMPLE_PREFIX):
            raise InputError(f"unknown example {text!r}; the built-in one is {EXAMPLE_SOURCE!r}")
        elif text.startswith(sources.REGISTRY_PREFIX):
            registry.get_draft(text[len(sources.REGISTRY_PREFIX) :].strip())  # raises for an unknown id
        n: int | None = None
        if samples not in (None, ""):
            try:
                n = int(str(samples).replace(",", "").replace("_", ""))
            except ValueError:
                raise InputError(f"training samples must be a whole number, not {str(samples)[:40]!r}") from None
            if not 1 <= n <= MAX_SAMPLES:
                raise InputError(f"training samples must be between 1 and {MAX_SAMPLES:,}")
        return cls(source=text, volume=(volume or None), samples=n, group=(group or None))

    # -- what is attached

    def volume_row(self, volumes: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
        """The stored training volume attached to this draft (latest audit under its name), if any."""
        if not self.volume:
            return None
        from comparelib.models import comparison

        return comparison.volumes_by_draft(volumes).get(self.volume)

    def training_samples(self, volumes: Sequence[Mapping[str, Any]]) -> tuple[float | None, str]:
        """(samples, where the number comes from); (None, why not) when nothing is attached."""
        row = self.volume_row(volumes)
        if row is not None and row.get("samples"):
            kind = str(row.get("kind") or "measured")
            named = kind == "measured" or str(self.volume).startswith(kind)
            return float(row["samples"]), str(self.volume) if named else f"{self.volume} ({kind})"
        if self.volume and row is None:
            return None, f"no training volume is stored under {self.volume!r}; audit the data and attach it"
        if self.samples:
            return float(self.samples), "typed in"
        return None, "not measured: audit the training data on the Dataset audit page and attach it to this draft"

    def runs(self, store: Any) -> list[Any]:
        """The draft's benchmark runs (its run group), oldest first; none when no group is attached."""
        if not self.group:
            return []
        return list(store.runs(group=self.group))


DEFAULT = OwnDraft(source=EXAMPLE_SOURCE, volume=EXAMPLE_VOLUME, group=EXAMPLE_GROUP)


def latest_own_group(runs: Sequence[Any]) -> str | None:
    """The group of the most recent non-example run that has one (what "my latest runs" means)."""
    mine = [r for r in runs if getattr(r, "kind", None) != "example" and getattr(r, "group", None)]
    if not mine:
        return None
    return max(mine, key=lambda r: (r.created_at, r.id)).group


def target_from_runs(runs: Sequence[Any]) -> str | None:
    """The target model the draft's own runs were served with, when they name one and only one.

    Raw EAGLE-3 configs do not name their target; the server does (it reports the model it serves), so a
    draft benchmarked on Llama-3.1-8B is not compared with a Kimi draft for want of a target in its config."""
    models = {
        str(r.model).strip() for r in runs if getattr(r, "kind", None) != "example" and getattr(r, "model", None)
    }
    return models.pop() if len(models) == 1 else None


def run_pool(all_runs: Sequence[Any], draft: OwnDraft) -> list[Any]:
    """The runs a comparison starts from: the draft's group, else the latest own runs, else the example."""
    if draft.group:
        grouped = [r for r in all_runs if r.group == draft.group]
        if grouped:
            return grouped
    own = [r for r in all_runs if r.kind != "example"]
    if own:
        return own
    return [r for r in all_runs if r.group == EXAMPLE_GROUP]


def default_runs(all_runs: Sequence[Any], draft: OwnDraft, *, limit: int = 6) -> list[Any]:
    """The newest ``limit`` runs of ``run_pool`` (``speedup.with_baselines`` adds the baselines they need)."""
    return run_pool(all_runs, draft)[-limit:]


@dataclass(frozen=True)
class TargetNotice:
    """A target model pasted where a draft belongs: what it is and which published drafts serve it."""

    hub_id: str | None  # the target's repo id, when the source names one
    architecture: str
    layers: int
    drafts: tuple[str, ...]  # published drafts (registry ids) trained for this target
    sentence: str


def _repo_id(source: str) -> str | None:
    try:
        return hub.parse_ref(source).repo_id
    except CompareError:
        return None


def drafts_for_target(hub_id: str | None) -> tuple[str, ...]:
    """Published drafts whose target is ``hub_id`` (case-insensitive); none for an unknown id."""
    if not hub_id:
        return ()
    wanted = hub_id.strip().strip("/").lower()
    return tuple(d.hub_id for d in registry.load_registry() if d.target_model.lower() == wanted)


def _count_words(n: int) -> str:
    for div, word in ((1e12, "trillion"), (1e9, "billion"), (1e6, "million")):
        if n >= div:
            return f"{n / div:.3g} {word}"
    return f"{n:,}"


def target_notice(entry: comparison.Entry) -> TargetNotice | None:
    """Say so when "your draft" is a target model (its config describes a full model, not a draft head).

    Counting it as a draft makes every comparison meaningless (a 1T target is "860 times the size of"
    a draft), so the pages stop there and offer to use it as the target instead.
    """
    if entry.spec.role != "target":
        return None
    hub_id = None if entry.kind == "local" else _repo_id(entry.source)
    drafts = drafts_for_target(hub_id)
    name = hub_id or entry.label
    sentence = (
        f"{name} is a target model ({entry.spec.architecture}, {entry.spec.num_hidden_layers} layers, "
        f"{_count_words(entry.count.total)} parameters), not a draft: it is what a draft speculates for. "
        + (
            f"Published drafts for it: {', '.join(drafts)}."
            if drafts
            else "No published draft for it is known to this app."
        )
        + " Paste your draft in the sidebar, and use this model as the target on Compare drafts."
    )
    return TargetNotice(hub_id, entry.spec.architecture, entry.spec.num_hidden_layers, drafts, sentence)
