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
``draft_target``
    the target model set on Compare drafts, used where the draft names none (``resolve_target``)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from comparelib import redact
from comparelib.errors import CompareError, InputError
from comparelib.models import hub, registry, sources
from comparelib.values import id_span

if TYPE_CHECKING:  # the sidebar parses a draft's name before the page loads comparison (and what it loads)
    from comparelib.models import comparison

EXAMPLE_SOURCE = sources.EXAMPLE_OWN
EXAMPLE_GROUP = "example-kimi-k2.5"
EXAMPLE_VOLUME = "example: own Kimi-K2.5 draft"
MAX_FIELD = 500  # characters in one URL parameter: a Hub URL with a revision fits easily
MAX_SAMPLES = 10**13
PARAMS = ("draft", "draft_vol", "draft_samples", "draft_group", "draft_target")


@dataclass(frozen=True)
class OwnDraft:
    """The user's draft: where it comes from, and the audits and runs attached to it (by name)."""

    source: str = EXAMPLE_SOURCE
    volume: str | None = None  # the draft name its training volume is stored under
    samples: int | None = None  # training samples typed in (used when ``volume`` is not set)
    group: str | None = None  # the run group of its benchmarks
    target: str | None = None  # the target model set on Compare drafts (its config's, published or runs' first)

    def __post_init__(self) -> None:
        # a source the pages refuse to read names no draft: nothing stored under a name in it comes along (walk AD:
        # https://evil.example.com/coderlab/x took the audit stored under coderlab/x and put draft_vol in the link)
        if (self.volume or self.group or self.target) and self.refusal:
            for name in ("volume", "group", "target"):
                object.__setattr__(self, name, None)

    @property
    def refusal(self) -> str | None:
        """Why the pages refuse to read this draft's source, as they say it (a web host that is not a Hub, a
        revision or path with '..', an address that is not https, a folder outside the data root); None when they
        read it. A refused source has nothing attached: no stored audit, run group or target."""
        kind = self.kind
        try:
            if kind == "hub":
                hub.parse_ref(self.source)
            elif kind == "local":
                from comparelib import paths

                paths.resolve_user_path(self.source, "folder")
        except CompareError as exc:
            return str(exc)
        return None

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
    def identity(self) -> str:
        """The draft whatever form it was pasted in, for what a session remembers per draft: a Hub draft by its repo
        id (lower case; a URL, ``org/name`` and ``org/name@rev`` are one), any other by its source."""
        if self.kind == "hub":
            repo = _repo_id(self.source)
            if repo:
                return f"hub:{repo.lower()}"
        return self.source

    @property
    def match_name(self) -> str | None:
        """The name a run's draft_model is matched with (``runs_of_draft``); None for the built-in example, whose
        runs are answered as they are."""
        return None if self.is_example else self.name

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
        if self.target:
            out["draft_target"] = self.target
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
        return cls.parse(
            source,
            volume=one("draft_vol"),
            samples=one("draft_samples"),
            group=one("draft_group"),
            target=one("draft_target"),
        )

    @classmethod
    def parse(
        cls,
        source: str,
        *,
        volume: str | None = None,
        samples: int | str | None = None,
        group: str | None = None,
        target: str | None = None,
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
        return cls(source=text, volume=(volume or None), samples=n, group=(group or None), target=clean_target(target))

    # -- what is attached

    def attached_row(self, volumes: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
        """The stored training volume attached to this draft (latest audit under its name), if any, used or not."""
        if not self.volume:
            return None
        from comparelib.models import comparison

        return comparison.volumes_by_draft(volumes).get(self.volume)

    def volume_row(self, volumes: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
        """The stored training volume the pages use for this draft (``attached_row``), if any: None where it is a
        sample that the samples typed in replace (``training_samples``), so its tokens are not set beside a sample
        count that is not its own (the plan read 600 tokens of a 10-row sample over 12,000 samples typed in)."""
        row = self.attached_row(volumes)
        return None if row is not None and self.samples and self._is_sample(row) else row

    @staticmethod
    def _is_sample(row: Mapping[str, Any]) -> bool:
        from comparelib.values import VOLUME_KIND_SAMPLE

        return row.get("kind") == VOLUME_KIND_SAMPLE

    @property
    def volume_of_another(self) -> str | None:
        """The attached volume's name when it names another draft (a Hub id or folder that is not this one's).

        An audit attached while another draft was in the sidebar came along to this one: Overview answered v1
        with the 321 samples stored under v2's name, and nothing said so. A label that names no draft ("my
        data") belongs to whoever picks it."""
        if not self.volume or self.is_example or self.volume == EXAMPLE_VOLUME:
            return None
        if not _HUB_ID.fullmatch(self.volume) or draft_match(self.volume, self.name):
            return None
        return self.volume

    @property
    def published(self) -> registry.PublishedDraft | None:
        """The registry's entry when this draft is a published one (pasted by its Hub id or URL, or picked as
        ``registry:``), None otherwise: a folder of the same name is not it, nor is a target's own MTP layers.
        Walk AJ3: AQ-MedAI/Kimi-K2.7-Code-eagle3 pasted as yours said "Training volume: ours is missing" while the
        registry publishes its 400,000 samples."""
        hub_id = self.short if self.kind == "registry" else _repo_id(self.source) if self.kind == "hub" else None
        if not hub_id:
            return None
        try:
            pub = registry.get_draft(hub_id)
        except CompareError:
            return None
        return None if pub.hub_id.lower() == (pub.target_model or "").lower() else pub

    def own_volume(self, volumes: Sequence[Mapping[str, Any]]) -> str | None:
        """The name of the audit stored under this draft's own name, if there is one (none for a refused source)."""
        if self.is_example or self.refusal:
            return None
        from comparelib.models import comparison

        return next((name for name in comparison.volumes_by_draft(volumes) if draft_match(name, self.name)), None)

    def volume_is_sample(self, volumes: Sequence[Mapping[str, Any]]) -> bool:
        """Whether the attached audit counted a sample it did not extrapolate (``values.VOLUME_KIND_SAMPLE``): its
        samples are the sample's rows, not the data's."""
        row = self.attached_row(volumes)
        return row is not None and self._is_sample(row)

    def _sample_words(self, volumes: Sequence[Mapping[str, Any]]) -> str:
        """ "the audit attached as acme/x counts a sample of 300 rows, not the full volume"."""
        row = self.attached_row(volumes) or {}
        m = re.search(r"a sample of ([\d,]+) rows", str(row.get("source") or ""))
        rows = m.group(1) if m else f"{int(row.get('samples') or 0):,}"
        return f"the audit attached as {self.volume} counts a sample of {rows} rows, not the full volume"

    def training_samples(self, volumes: Sequence[Mapping[str, Any]]) -> tuple[float | None, str]:
        """(samples, where the number comes from); (None, why not) when nothing is attached.

        An attached audit comes first, over a number typed in, unless it counted a sample it did not extrapolate
        (``volume_is_sample``): the number typed in is the user's statement of the full volume, and the sample's
        rows are not (walk U: a 300-row sample replaced the 12,000 typed in). Such a sample alone gives no volume."""
        row = self.attached_row(volumes)
        if row is not None and self.volume_is_sample(volumes):
            if self.samples:  # "typed in" as such: the plan calls a number typed in the user's (volume_text adds why)
                return float(self.samples), "typed in"
            return None, f"{self._sample_words(volumes)}: type the full training-sample count in the sidebar"
        if row is not None and row.get("samples"):  # an attached audit comes first, also over a number typed in
            kind = str(row.get("kind") or "measured")
            other = ", which is another draft's name" if self.volume_of_another else ""
            if kind == "measured":  # what it counts, where the attach said (values.volume_words)
                from comparelib.values import volume_words

                what = volume_words(row.get("source"))
                counts = f": {what}" if what else ""
                return float(row["samples"]), f"attached from Dataset audit as {self.volume}{other}{counts}"
            where = str(self.volume) if str(self.volume).startswith(kind) else f"{self.volume} ({kind})"
            return float(row["samples"]), where + other
        if self.volume and row is None:
            return None, f"no training volume is stored under {self.volume!r}; audit the data and attach it"
        if self.samples:
            return float(self.samples), "typed in"
        pub = self.published
        if pub is not None and pub.train_samples:  # a published draft pasted as yours: its published figure
            return float(pub.train_samples), (
                f"published: the registry's figure for {pub.hub_id}; a number typed in or an audit attached "
                "replaces it"
            )
        return None, "not measured: audit the training data on the Dataset audit page and attach it to this draft"

    def volume_text(self, volumes: Sequence[Mapping[str, Any]]) -> str:
        """The training volume the pages use, as the sidebar says it: "310 samples, attached from Dataset audit as
        acme/x" or "250,000 samples, typed in" (``training_samples``' rule and words)."""
        n, where = self.training_samples(volumes)
        if n and self.samples and self.volume_is_sample(volumes):  # why the attached audit is not the one used
            where += f" ({self._sample_words(volumes)})"
        return f"{n:,.0f} samples, {where}" if n else where

    @property
    def typed_unused(self) -> int | None:
        """The samples typed in that no page uses because an audit is attached (it comes first); None when none.

        Attaching an audit on Dataset audit keeps the number typed in the sidebar: without saying so the
        sidebar showed 250,000 while Overview answered for the audit's 310."""
        return self.samples if self.volume and self.samples else None

    def typed_unused_in(self, volumes: Sequence[Mapping[str, Any]]) -> int | None:
        """``typed_unused`` with the stored volumes known: None where the attached audit is a sample, which does not
        replace the number typed in (``training_samples``)."""
        return None if self.volume_is_sample(volumes) else self.typed_unused

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


def target_from_runs(runs: Sequence[Any], draft: str | None = None) -> str | None:
    """The target model the draft's own runs were served with, when they name one and only one.

    Raw EAGLE-3 configs do not name their target; the server does (it reports the model it serves), so a
    draft benchmarked on Llama-3.1-8B is not compared with a Kimi draft for want of a target in its config.
    Names of one model (a Hub id, the local folder it was served from) count as one; the Hub id is returned.
    With ``draft`` (the draft's name) only its own runs and the baselines say it (``runs_of_draft``): a
    gpt-oss-120b group holding a Kimi draft's runs too had no target, and Overview compared with a Kimi draft."""
    if draft:
        runs = runs_of_draft(runs, draft).kept
    names = [str(r.model).strip() for r in runs if getattr(r, "kind", None) != "example" and _model_of(r)]
    classes = _name_classes(names)
    return _representative(classes[0]) if len(classes) == 1 else None


# -- which runs are the draft's own
#
# A run group may hold runs of other drafts (a published draft measured beside yours, the target's own MTP
# layers): their target, pair and acceptance are not your draft's. A run's draft_model is the path or id the
# server was given; it is the draft's when it names the same repo id, or the same folder name where one side is a
# local folder (case aside, an @revision dropped).


def _draft_parts(name: str) -> tuple[str | None, str]:
    """(Hub repo id or None, its last part) of a draft reference, lower case, revision dropped."""
    text = str(name or "").strip()
    cache = re.search(r"models--([^/\\]+?)--([^/\\]+)", text)
    if cache:
        return f"{cache.group(1)}/{cache.group(2)}".lower(), cache.group(2).lower()
    text = re.sub(r"^(?:hf://|https?://[^/]+/)", "", text)
    text = re.split(r"/(?:tree|resolve|blob)/", text)[0].rstrip("/\\").split("@", 1)[0]
    last = re.split(r"[/\\]", text)[-1].lower()
    local = text.startswith(("/", "~", ".", "\\")) or bool(re.match(r"[A-Za-z]:[/\\]", text))
    return (None if local or not _HUB_ID.fullmatch(text) else text.lower()), last


# a trainer's checkpoint folder name, the same in every run of every team: it says nothing of whose draft it is
_CHECKPOINT_NAME = re.compile(
    r"(?:epoch|step|checkpoint|ckpt|iter|iteration|global[_-]?step)[-_]?\d+|final|latest|best|last"
)


def _parent(name: str) -> str | None:
    """The folder above a local draft's last part (lower case), None where the name has no parent."""
    text = re.sub(r"^(?:hf://|https?://[^/]+/)", "", str(name or "").strip()).split("@", 1)[0]
    parts = [p for p in re.split(r"[/\\]", text.rstrip("/\\").lower()) if p and p != "."]
    return parts[-2] if len(parts) >= 2 else None


def draft_match(run_draft: str | None, draft: str | None) -> bool:
    """Whether a run's ``draft_model`` names the draft ``draft``: the same repo id, or the same folder name where
    either is a local folder; case and an @revision aside. False when either is not recorded. A checkpoint name
    (``epoch_9``, ``checkpoint-1200``) matches only under the same parent folder where both give one: walk AP took
    another team's /ckpt/other-team-draft/epoch_9 as qwen3-30b-eagle3/epoch_9."""
    if not (run_draft or "").strip() or not (draft or "").strip():
        return False
    (repo_a, last_a), (repo_b, last_b) = _draft_parts(str(run_draft)), _draft_parts(str(draft))
    if repo_a and repo_b and not _CHECKPOINT_NAME.fullmatch(last_a):
        return repo_a == repo_b
    if not last_a or last_a != last_b:
        return False
    if _CHECKPOINT_NAME.fullmatch(last_a):
        parent_a, parent_b = _parent(str(run_draft)), _parent(str(draft))
        return parent_a is None or parent_b is None or parent_a == parent_b
    return True


@dataclass(frozen=True)
class DraftRuns:
    """A group's runs split into the draft's own (and the baselines) and those of another draft."""

    kept: tuple[Any, ...]  # baselines, runs of the draft, else the runs that may be its (see ``runs_of_draft``)
    left_out: tuple[Any, ...]  # runs of another draft or of the target's own MTP layers, and unnamed ones
    note: str | None  # what was left out, or taken as the draft's for want of its name; None: nothing to say
    unrecorded: tuple[Any, ...] = ()  # of ``left_out``, the speculative runs that record no draft: whose is unknown


def _other_draft_words(run: Any) -> str:
    from comparelib.models.registry import algorithm_label, is_mtp

    if is_mtp(run):
        return f"#{run.id} {algorithm_label(run)}"
    named = str(getattr(run, "draft_model", None) or "").strip() or registry.draft_label(run)  # "n-gram"
    return f"#{run.id} {named}" if named != registry.UNRECORDED_DRAFT else f"#{run.id} (no draft recorded)"


def _published(name: str) -> bool:
    """``name`` is a published draft of the registry (by repo id or folder name). A target's own MTP layers, listed
    under the target's id (deepseek-ai/DeepSeek-V3), are not: a draft card naming that target as its base_model
    was read as naming a published draft, and the target left unknown (walk Z)."""
    return any(
        draft_match(name, d.hub_id) and (d.hub_id or "").lower() != (d.target_model or "").lower()
        for d in registry.load_registry()
    )


def _other_repo(run_draft: str, draft: str) -> bool:
    """Both name a Hub repo id, and not the same one: another draft. Only a path or folder name can be the draft
    served under another name; walk AM took qwen35lab/qwen35-397b-eagle3's runs as AQ-MedAI/...-eagle3's."""
    (repo_a, _), (repo_b, _) = _draft_parts(run_draft), _draft_parts(draft)
    return bool(repo_a and repo_b and repo_a != repo_b)


def runs_of_draft(runs: Sequence[Any], draft: str | None) -> DraftRuns:
    """The runs that measure the draft named ``draft`` (its repo id or folder name) and the baselines; runs of
    another draft and of the target's own MTP layers (``registry.is_mtp``) are left out and named.

    When no run names this draft, the runs naming no draft, or a draft that is not a published one, may be it
    (a draft is often served from a folder of another name, a checkpoint's ``epoch_9``): they are kept and the note
    says so; a published draft's runs, MTP runs and, for a draft named by repo id, runs naming another repo id are
    still left out. With no ``draft`` every run is kept.

    Where runs do name the draft, a speculative run that records no draft (a vLLM run made before the Live benchmark
    page recorded the sidebar's draft: vLLM does not report it) is left out too, but not called another draft's:
    "#16 (no draft recorded: cannot be shown to be yours)". Walk R's Overview read "2 runs of another draft left out:
    #15 (no draft recorded), #16 (no draft recorded)" of the user's own vLLM runs."""
    runs = list(runs)
    if not (draft or "").strip():
        return DraftRuns(tuple(runs), (), None)

    def verdict(r: Any) -> str:
        if getattr(r, "is_baseline", False):
            return "baseline"
        if registry.is_mtp(r):
            return "other"
        named = str(getattr(r, "draft_model", None) or "").strip()
        if not named:  # a model-free method (n-gram) is no draft's; any other may be yours, recorded or not
            return "other" if registry.draft_label(r) != registry.UNRECORDED_DRAFT else "unnamed"
        if draft_match(named, draft):
            return "mine"
        return "other" if _published(named) or _other_repo(named, str(draft)) else "unknown"

    verdicts = [verdict(r) for r in runs]
    keep = {"baseline", "mine"} if "mine" in verdicts else {"baseline", "unnamed", "unknown"}
    kept = tuple(r for r, v in zip(runs, verdicts, strict=True) if v in keep)
    out = tuple(r for r, v in zip(runs, verdicts, strict=True) if v not in keep)
    unrecorded = tuple(r for r, v in zip(runs, verdicts, strict=True) if v == "unnamed" and v not in keep)
    others = [r for r, v in zip(runs, verdicts, strict=True) if v not in keep and v != "unnamed"]
    said = []
    if others:
        n = len(others)
        said.append(
            f"{n} run{'s' if n > 1 else ''} of another draft left out: "
            f"{', '.join(_other_draft_words(r) for r in others)} (your draft is {draft})."
        )
    if unrecorded:
        n = len(unrecorded)
        said.append(
            f"{n} speculative run{'s' if n > 1 else ''} left out: {_ids(unrecorded)} (no draft recorded: cannot be "
            f"shown to be yours{'' if others else f'; your draft is {draft}'})."
            + (_UNRECORDED_VLLM if any(_engine(r) == "vllm" for r in unrecorded) else "")
        )
    guessed = _by_draft([r for r, v in zip(runs, verdicts, strict=True) if v == "unknown" and v in keep])
    taken = [r for r, v in zip(runs, verdicts, strict=True) if v == "unnamed" and v in keep]
    if guessed or taken:  # said, never taken silently
        named = "; ".join(f"{name} ({_ids(rs)})" for name, rs in guessed.items())
        listed = [f"the runs of {named}"] if guessed else []
        if taken:
            listed.append(f"the runs that record no draft ({_ids(taken)})")
        said.append(f"No run names your draft {draft}: {' and '.join(listed)} are taken as its.")
        if guessed:
            said[-1] += " Benchmark it served from a folder of its name to tell it from other drafts."
    return DraftRuns(kept, out, " ".join(said) or None, unrecorded)


# why a vLLM run records no draft, and how a run of yours comes to record it
_UNRECORDED_VLLM = (
    " vLLM does not report the draft it serves: Live benchmark records the draft in your sidebar on a new vLLM run, "
    "an import the one in its Draft field."
)


def _engine(run: Any) -> str:
    return str(getattr(run, "engine", None) or "").strip().lower()


def _by_draft(runs: Sequence[Any]) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for r in runs:
        out.setdefault(str(r.draft_model).strip(), []).append(r)
    return out


# -- which runs were served with the draft's target
#
# Servers report the model as it was given to them: a Hub id (SGLang's model_path, vLLM's model id), a local
# folder or the Hub cache's snapshot folder, or a --served-model-name alias. Names are compared by their last
# part (case, separators and an @revision aside); two names are another model only when both name a known
# model line and its version or size differs, so an alias or an unknown name is kept and said, never dropped.

_LINEAGES = (
    "codellama|llama|vicuna|qwq|qwen|kimi|deepseek|mixtral|ministral|magistral|devstral|codestral|mistral|gemma|"
    "gpt-oss|phi|glm|minimax|internlm|baichuan|falcon|olmo|granite|nemotron|hunyuan|ernie|exaone|mimo|yi"
)
_LINEAGE = re.compile(rf"(?:^|[-_. ])({_LINEAGES})(?=$|[^a-z])")
_VERSION = re.compile(r"[-_ ]?([a-z]?\d+(?:\.\d+)*)(?![0-9.]|[bmt](?![a-z]))")
_SIZE = re.compile(r"(?:^|[-_. ])(\d+(?:\.\d+)?(?:x\d+(?:\.\d+)?)?[bmt])(?=$|[^a-z0-9])")
_HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+")


def _model_of(run: Any) -> str:
    return str(getattr(run, "model", None) or "").strip()


def _base(name: str) -> str:
    """The model's own name in a Hub id, URL, local folder or Hub-cache path, lower case, revision dropped."""
    text = str(name).strip()
    cache = re.search(r"models--([^/\\]+?)--([^/\\]+)", text)
    if cache:
        return cache.group(2).lower()
    text = re.sub(r"^(?:hf://|https?://[^/]+/)", "", text)
    text = re.split(r"/(?:tree|resolve|blob)/", text)[0].rstrip("/\\")
    base = re.split(r"[/\\]", text)[-1].split("@", 1)[0].lower()
    return re.sub(r"^meta-?(?=llama)", "", base)  # Meta-Llama-3.1-8B is Llama-3.1-8B


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", _base(name))


def _signature(name: str) -> tuple[str | None, str | None, frozenset[str]]:
    """(model line, its version, parameter sizes) as far as the name says: ("llama", "3.1", {"8b"})."""
    base = _base(name)
    line = _LINEAGE.search(base)
    version = None
    if line:
        m = _VERSION.match(base, line.end())
        version = m.group(1) if m else None
    return (line.group(1) if line else None), version, frozenset(_SIZE.findall(base))


# A name naming a teacher's line and then another line is the teacher distilled into that other line's model, and
# the family is the student's base (DeepSeek-R1-Distill-Llama-8B is a Llama-3.1-8B, DeepSeek-R1-0528-Qwen3-8B a
# Qwen3-8B); "Distill" points at the line after it whoever the teacher is. DeepSeek-R1's distills name their base
# line without its version (DeepSeek's model cards: Llama-3.1-8B, Llama-3.3-70B-Instruct and Qwen2.5).
_TEACHERS = {"deepseek": {"llama": "3", "qwen": "2"}}
_DISTILL = re.compile(r"(?:^|[-_. ])distill(?:ed)?(?=$|[^a-z])")


def model_family(name: str | None) -> str | None:
    """The model line and major version a name says, as one key: Qwen/Qwen3-32B and Qwen/Qwen3-30B-A3B are
    "qwen3", Llama-3.1-8B and Llama-3.3-70B "llama3", gpt-oss-20b "gpt-oss"; None when no known line is named.

    A distill or fine-tune named after its base is of its base's family: deepseek-ai/DeepSeek-R1-Distill-Llama-8B
    is "llama3", DeepSeek-R1-Distill-Qwen-7B "qwen2", not DeepSeek's (the family once was the Hub organisation,
    and a Llama-3.1-8B-architecture target was aimed at a Kimi-K2 draft's acceptance). Every page and the plan
    group models by this one key (``registry.family_of`` reads it)."""
    base = _base(name or "")
    lines = list(_LINEAGE.finditer(base))
    if not lines:
        return None
    pick = lines[0]
    marker = _DISTILL.search(base)
    after = [m for m in lines if marker and m.start() >= marker.end()]
    if after:
        pick = after[0]
    elif pick.group(1) in _TEACHERS and len(lines) > 1:
        pick = lines[1]
    line = pick.group(1)
    m = _VERSION.match(base, pick.end())
    version = m.group(1) if m else None
    if version is None and pick is not lines[0]:
        version = _TEACHERS.get(lines[0].group(1), {}).get(line)
    return line + (version.split(".", 1)[0] if version else "")


def family_words(family: str | None) -> str:
    """ "qwen3" -> "Qwen3", "llama3" -> "Llama-3", "kimik2" -> "Kimi-K2": a family key (``model_family``) as
    people write it; a key of no known line as it is."""
    names = {"llama": "Llama-", "gpt-oss": "gpt-oss", "qwen": "Qwen", "kimi": "Kimi-", "deepseek": "DeepSeek-"}
    family = family or ""
    for line, word in names.items():
        if family.startswith(line) and family != line:
            rest = family[len(line) :]
            return word + (rest.upper() if line in ("kimi", "deepseek") else rest)
        if family == line:
            return word.rstrip("-")
    return family


def model_size(name: str | None) -> float | None:
    """Parameters a name states ("32B" -> 32e9, "8x7B" -> 56e9; the largest where several are named); None if none."""
    found = []
    for size in _signature(name or "")[2]:
        scale = {"b": 1e9, "m": 1e6, "t": 1e12}[size[-1]]
        found.append(_size_value(size[:-1]) * scale)
    return max(found) if found else None


def _size_value(text: str) -> float:
    """ "8x7" -> 56.0, "32" -> 32.0."""
    out = 1.0
    for part in text.split("x"):
        out *= float(part)
    return out


def model_match(served: str | None, target: str | None) -> str:
    """ "same", "other" or "unsure": whether a run served as ``served`` ran the model named ``target``.

    "other" only when both names say so (another model line, version or size); an alias, a renamed folder or
    an unrecorded name is "unsure"."""
    a, b = _key(served or ""), _key(target or "")
    if not a or not b:
        return "unsure"
    if a == b:
        return "same"
    (line_a, ver_a, size_a), (line_b, ver_b, size_b) = _signature(served or ""), _signature(target or "")
    if line_a and line_b:
        if line_a != line_b or (ver_a and ver_b and ver_a != ver_b) or (size_a and size_b and size_a != size_b):
            return "other"
    short, long_ = sorted((a, b), key=len)
    if long_.startswith(short):  # a quantised or renamed variant (-FP8, -Instruct-0905): the same when sized
        shorter = served if len(a) <= len(b) else target
        return "same" if _signature(shorter or "")[2] else "unsure"
    return "unsure"


QUANT = re.compile(r"(?i)(?<![a-z0-9])(nvfp4|mxfp4|fp8|fp4|int8|int4|w4a16|w8a8|w4a8|awq|gptq|bnb|gguf)(?![a-z0-9])")


def same_target(theirs: str | None, yours: str | None) -> bool:
    """Whether a published draft's target ``theirs`` is your target ``yours``: the same name, or ``model_match``'s
    "same" where the names differ only by a quantisation (walk AI: the draft for Qwen3-Next-80B-A3B-Instruct-FP8
    was "not a draft for your target"). A later release (Qwen3-30B-A3B-Instruct-2507 of Qwen3-30B-A3B) is not."""
    a, b = _base(theirs or ""), _base(yours or "")
    if not a or not b:
        return False
    if a == b:
        return True

    def bare(name: str) -> str:
        return re.sub(r"[^a-z0-9]", "", QUANT.sub("", name))

    return model_match(theirs, yours) == "same" and bare(a) == bare(b)


def checkpoint_words(theirs: str | None, yours: str | None) -> str:
    """ "the FP8 checkpoint of your target (Qwen/...-FP8)" where ``theirs`` (``same_target``) names your target
    otherwise; "" where the names are the same."""
    a, b = (theirs or "").strip(), (yours or "").strip()
    if not a or not b or _base(a) == _base(b):
        return ""
    if (quant := QUANT.search(_base(a))) and not QUANT.search(_base(b)):
        return f"the {quant.group(1).upper()} checkpoint of your target ({a})"
    return f"{a}, a checkpoint of your target"


def _name_classes(names: Sequence[str]) -> list[list[str]]:
    """Distinct names grouped by ``model_match`` == "same", in order of first appearance."""
    classes: list[list[str]] = []
    for name in dict.fromkeys(names):
        for c in classes:
            if any(model_match(name, other) == "same" for other in c):
                c.append(name)
                break
        else:
            classes.append([name])
    return classes


def _representative(names: Sequence[str]) -> str:
    """A class's name to show and match with: its Hub id when it has one."""
    return next((n for n in names if _HUB_ID.fullmatch(n)), names[0])


def _ids(runs: Sequence[Any]) -> str:
    return ", ".join(f"#{r.id}" for r in runs)


def _by_name(runs: Sequence[Any]) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for r in runs:
        out.setdefault(_model_of(r), []).append(r)
    return out


def _listed(groups: Mapping[str, Sequence[Any]], of_group: str, verb: str) -> str:
    """ "2 runs of group g (#7, #9) were served with A and 1 (#11) with B" for ``verb`` "served with"."""
    parts = []
    for i, (name, rs) in enumerate(groups.items()):
        n = len(rs)
        if i == 0:
            parts.append(
                f"{n} run{'s' if n > 1 else ''}{of_group} ({_ids(rs)}) {'were' if n > 1 else 'was'} {verb} {name}"
            )
        else:
            parts.append(f"{n} ({_ids(rs)}) {verb.split()[-1]} {name}")
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


@dataclass(frozen=True)
class TargetSplit:
    """A draft's runs split by the target model they were served with, and what to say about it."""

    kept: tuple[Any, ...]  # served with the draft's target, or not shown to be another model
    left_out: tuple[Any, ...]  # served with another target model
    note: str | None  # the runs left out, kept unmatched, or the targets a group mixes; None: nothing to say
    target: str | None  # the draft's target the runs were matched with


def runs_for_target(runs: Sequence[Any], target: str | None) -> TargetSplit:
    """Leave out the runs served with another target model than ``target`` (the draft's), naming them.

    A draft's answers (the best pair, the sweep, its acceptance, the plan) measured on another target are
    another model's numbers. Runs whose name cannot be matched, or that record none, are kept and said. With
    no ``target`` nothing is left out, but runs of several target models are said to be mixed: which of them
    are the draft's cannot be told."""
    runs = list(runs)
    groups = {r.group for r in runs if getattr(r, "group", None)}
    group = groups.pop() if len(groups) == 1 else None
    of_group = f" of group {group}" if group else ""
    target = (target or "").strip() or None
    if target is None:
        classes = _name_classes([m for r in runs if (m := _model_of(r))])
        if len(classes) < 2:
            return TargetSplit(tuple(runs), (), None, None)
        listed = [f"{_representative(c)} ({_ids([r for r in runs if _model_of(r) in c])})" for c in classes]
        where = f"Group {group}" if group else "These runs"
        mixed = (
            f"{where} mix{'es' if group else ''} {len(classes)} target models: {', '.join(listed[:-1])} and "
            f"{listed[-1]}. The draft's target is not known, so its runs cannot be told from the others': all are "
            "used, and a speedup or a fit pairs runs of one model only. Keep one target model per run group."
        )
        return TargetSplit(tuple(runs), (), mixed, None)
    kept: list[Any] = []
    other: list[Any] = []
    unsure: list[Any] = []
    unnamed: list[Any] = []
    for r in runs:
        name = _model_of(r)
        verdict = model_match(name, target) if name else "unsure"
        (other if verdict == "other" else kept).append(r)
        if not name:
            unnamed.append(r)
        elif verdict == "unsure":
            unsure.append(r)
    said = []
    if other:
        said.append(
            f"{_listed(_by_name(other), of_group, 'served with')}, not your draft's target {target}; left out."
        )
    if unsure:
        names = _by_name(unsure)
        said.append(
            f"{_listed(names, of_group, 'served as')}, {'a name' if len(names) == 1 else 'names'} this app cannot "
            f"match to your draft's target {target}; kept."
        )
    if unnamed:
        n = len(unnamed)
        said.append(
            f"{n} run{'s' if n > 1 else ''}{of_group} ({_ids(unnamed)}) "
            + ("do not record their" if n > 1 else "does not record its")
            + " target model; kept."
        )
    note = " ".join(s[0].upper() + s[1:] for s in said) or None
    return TargetSplit(tuple(kept), tuple(other), note, target)


def clean_target(text: str | None) -> str | None:
    """A target typed on Compare drafts as the draft carries it (in the link too): stripped, no credentials;
    None when empty. InputError when longer than a link's field."""
    text = redact.strip_userinfo((text or "").strip())
    if len(text) > MAX_FIELD:
        raise InputError(f"the target model reference is longer than {MAX_FIELD} characters")
    return text or None


CARD_FRONT_CHARS = 64 * 1024  # a card's YAML front matter is read from its first 64 KiB only


def base_model_from_card(card: str | None) -> str | None:
    """The ``base_model`` a model card's YAML front matter names (one Hub id; the first of a one-item list), else
    None: no card, no front matter, several base models, or a published draft (a draft fine-tuned from another
    draft names that draft, not its target)."""
    text = (card or "")[:CARD_FRONT_CHARS].lstrip("\ufeff")
    m = re.match(r"---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|$)", text, re.S)
    if m is None:
        return None
    try:
        import yaml

        meta = yaml.safe_load(m.group(1))
    except Exception:  # noqa: BLE001 - a card's front matter is the author's text: unreadable is "names none"
        return None
    base = meta.get("base_model") if isinstance(meta, dict) else None
    if isinstance(base, list):
        base = base[0] if len(base) == 1 else None
    name = str(base).strip() if isinstance(base, str) else ""
    if not _HUB_ID.fullmatch(name) or _published(name):
        return None
    return name


def card_target(source: str) -> str | None:
    """The target a Hub draft's (or a local folder's) model card names as ``base_model``, for a config that names
    none. Reads the config and README only (no weights header, size-capped); None offline without a cached card,
    for a missing card, or any error reading it: the card is a hint, never a reason to fail."""
    try:
        fetched = hub.fetch_model(source, with_card=True, with_header=False, with_files=False)
    except CompareError:
        return None
    return base_model_from_card(fetched.card)


@dataclass(frozen=True)
class DraftTarget:
    """The target the pages use for your draft, where it comes from, and what they say about it."""

    model: str | None  # a hub id where one can be read; None when nothing names a target
    # "named" (its config or the example), "published" (its registry entry: its config names none), "card", "runs",
    # "compare" or "" (unknown)
    origin: str
    note: str = ""  # said on the page whenever the target set on Compare drafts is used or set aside


COMPARE_WORDS = "target from Compare drafts"


def _target_key(text: str) -> str:
    return (_repo_id(text) or text).strip().strip("/").lower()


def resolve_target(
    named: str | None,
    runs: Sequence[Any] = (),
    typed: str | None = None,
    *,
    named_by: str = "config",
    draft: str | None = None,
    card: str | None = None,
) -> DraftTarget:
    """Your draft's target: the one it names (``named_by``: its config, published entry, ...), else the one its
    own runs were served with, else ``typed``, the one set on Compare drafts in this session.

    What the draft itself says comes first (a target typed for another draft must not override it), but a
    Compare target set aside is said, so a page never silently answers for another target than the one typed.
    With ``draft`` (the draft's name) only its own runs and the baselines are read (``runs_of_draft``). ``card``:
    the ``base_model`` its model card names (``card_target``), used where the config names none, before the runs."""
    if draft:
        runs = runs_of_draft(runs, draft).kept
    typed = (typed or "").strip() or None
    typed_id = (_repo_id(typed) or typed) if typed else None
    # a published draft whose config names no target has its registry entry's (walk BJ: "named by the draft")
    origin_named = "published" if named_by == "published entry" else "named"
    own, origin, by = (named, origin_named, f"your draft's {named_by}") if named else (None, "", "")
    if own is None and card:  # its config names none; its model card's front matter does (``base_model``)
        own, origin, by = card, "card", "your draft's model card (base_model)"
    if own is None:
        own = target_from_runs(runs)
        origin, by = ("runs", "your draft's runs") if own else ("", "")
    if own is not None:
        if typed is None or _target_key(typed) == _target_key(own):
            return DraftTarget(own, origin)
        return DraftTarget(
            own,
            origin,
            f"Target {own}, from {by}; {typed_id}, the target set on Compare drafts, is not used here "
            "(what your draft says comes first).",
        )
    if typed_id is None:
        return DraftTarget(None, "")
    served = [r for r in runs if getattr(r, "kind", None) != "example" and _model_of(r)]
    classes = _name_classes([_model_of(r) for r in served])
    if len(classes) < 2:
        why = "no run of it names one"
    else:  # the runs name several targets, so none of them is the draft's (``target_from_runs``)
        named_runs = {_representative(c): [r for r in served if _model_of(r) in c] for c in classes}
        listed = "; ".join(f"{name}: {_id_span(rs)}" for name, rs in named_runs.items())
        why = f"its runs name several targets ({listed})"
        mine = next((name for name in named_runs if model_match(typed, name) == "same"), None)
        if mine is not None:
            n = len(named_runs[mine])
            why += f", and {_id_span(named_runs[mine])} {'were' if n > 1 else 'was'} served with this one"
    return DraftTarget(
        typed_id,
        "compare",
        f"Target {typed_id}, the {COMPARE_WORDS}: your draft's config names none and {why}.",
    )


def target_of(
    draft: OwnDraft,
    runs: Sequence[Any],
    entry: comparison.Entry | None,
    card: Callable[[], str | None] = lambda: None,
) -> DraftTarget:
    """The target the pages and the CLI use for ``draft`` (``resolve_target``): the one its ``entry`` names (its
    config, its published entry or the built-in example's), else the ``base_model`` of its model card (``card``,
    called only for a Hub or local draft whose config names none), else the one its own ``runs`` were served with,
    else ``draft.target`` (set on Compare drafts). ``entry`` None: its config could not be read, so it names none."""
    named, named_by, from_card = None, "config", None
    if entry is not None and entry.spec.role != "draft":  # a target pasted as your draft: it has no target to find
        return DraftTarget(None, "")  # (walk AR: "Target X, the target from Compare drafts" of X itself)
    if entry is not None:
        named = entry.target_label
        if entry.kind == "example":
            named_by = "built-in example"
        elif entry.published is not None and entry.target_from == "published":
            named_by = "published entry"
        elif named is None and entry.spec.role == "draft" and entry.kind in ("hub", "local"):
            from_card = card()
    return resolve_target(named, runs, draft.target, named_by=named_by, draft=draft.match_name, card=from_card)


def _id_span(runs: Sequence[Any]) -> str:
    """Run ids with consecutive ones joined: "#1-#5, #8"."""
    return id_span(int(r.id) for r in runs if str(getattr(r, "id", "")).isdigit()) or _ids(runs)


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


def pool_is_attached(all_runs: Sequence[Any], draft: OwnDraft) -> bool:
    """Whether ``run_pool`` is the draft's own run group (attached, and holding runs), not its fallback (the latest
    runs stored). The built-in example answers every run as it is: always True for it."""
    if draft.match_name is None:
        return True
    return bool(draft.group) and any(r.group == draft.group for r in all_runs)


def unattached_runs(pool: Sequence[Any], draft: OwnDraft) -> DraftRuns:
    """The draft's runs in ``run_pool``'s fallback (no run group attached, or one holding no runs): none.

    Overview reads only the attached group and says its live speed is missing; ``runs_of_draft``'s rule for a group
    in which no run names the draft (runs of an unpublished draft may be its) claimed the latest runs of another
    draft here ("No run names your draft epoch_3: the runs of labx/r1d-llama8b-eagle3 (#2-#15) are taken as its").
    Every speculative run is left out; the note says that no group is attached, whose runs these are, and the
    groups of runs that do name the draft (to attach)."""
    spec = [r for r in pool if not getattr(r, "is_baseline", False)]
    name = draft.match_name
    named = [r for r in spec if name and not registry.is_mtp(r) and draft_match(getattr(r, "draft_model", None), name)]
    others: dict[str, list[Any]] = {}
    for r in spec:
        if any(r is x for x in named):
            continue
        drafted = str(getattr(r, "draft_model", None) or "").strip()
        label = (registry.algorithm_label(r) or "MTP") if registry.is_mtp(r) else drafted or "no draft recorded"
        others.setdefault(label, []).append(r)
    why = (
        f"The run group {draft.group} attached to your draft {draft.name} holds no runs"
        if draft.group
        else f"No run group is attached to your draft {draft.name}"
    )
    said = [f"{why}, so no run is taken as yours (Overview's live speed is missing for the same reason)."]
    if others:
        listed = "; ".join(f"{label} ({id_span(r.id for r in rs)})" for label, rs in others.items())
        said.append(f"The runs shown are the latest stored, of other drafts: {listed}.")
    if named:
        by_group: dict[str, list[Any]] = {}
        for r in named:
            by_group.setdefault(str(getattr(r, "group", None) or ""), []).append(r)
        where = "; ".join(
            f"{id_span(r.id for r in rs)} in group {g}" if g else f"{id_span(r.id for r in rs)} in no group"
            for g, rs in by_group.items()
        )
        said.append(f"Runs naming your draft: {where}; attach their group in the sidebar to use them.")
    else:
        said.append("Attach your draft's run group in the sidebar, or benchmark your draft above.")
    return DraftRuns((), tuple(spec), " ".join(said))


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
    """Published drafts whose target is ``hub_id`` (``same_target``: walk AI's draft for the FP8 checkpoint of
    Qwen3-Next-80B-A3B-Instruct is one of its); none for an unknown id."""
    if not hub_id:
        return ()
    wanted = hub_id.strip().strip("/")
    return tuple(d.hub_id for d in registry.load_registry() if same_target(d.target_model, wanted))


def split_native(hub_id: str | None, drafts: Sequence[str]) -> tuple[list[str], list[str]]:
    """(published drafts, native entries) of ``drafts_for_target``'s drafts for the target ``hub_id``.

    The registry describes a target's own MTP layers (DeepSeek-V3's) under the target's own id: that entry is
    the target serving itself, not a published draft for it (it was listed as "Published drafts for it:
    deepseek-ai/DeepSeek-V3" for deepseek-ai/DeepSeek-V3)."""
    own = (hub_id or "").strip().strip("/").lower()
    native = [d for d in drafts if own and d.lower() == own]
    return [d for d in drafts if d not in native], native


def drafts_text(hub_id: str | None, drafts: Sequence[str], own_mtp: bool = False) -> str:
    """The sentence on what drafts a target has: published ones, and its own MTP layers where the registry
    holds them (``split_native``) or its config counts them (``own_mtp``: walk AK's DeepSeek-V3-0324 counts 13.5B
    of MTP parameters, yet only deepseek-ai/DeepSeek-V3 has a registry entry for them). Overview's and Compare's
    target notice and the CLI's say the same."""
    published, native = split_native(hub_id, drafts)
    said = f"Published drafts for it: {', '.join(published)}." if published else ""
    if native or own_mtp:
        said = (said + " " if said else "No separate published draft for it is known to this app. ") + (
            "It drafts with its own MTP layers (native): served by its own weights, with no draft model to load."
        )
    return said or "No published draft for it is known to this app."


def _count_words(n: int) -> str:
    for div, word in ((1e12, "trillion"), (1e9, "billion"), (1e6, "million")):
        if n >= div:
            return f"{n / div:.3g} {word}"
    return f"{n:,}"


SHIPPED_NOTE = "not read from the Hub"  # a target read from its config shipped with the app (offline or gated)


def pasted_target(entry: comparison.Entry | None) -> str | None:
    """The Hub id of a target model pasted as your draft: the target a page picks published references for
    (walk BI: a Llama-4-Maverick target pasted as a draft had Acceptance vs data aim at a Llama-4-Scout draft's
    figure, "your draft names no target", and Compare open on that Scout draft, while the notice listed Maverick's
    own drafts). None for a draft, a local folder, or no entry."""
    if entry is None or entry.spec.role != "target" or entry.kind == "local":
        return None
    return _repo_id(entry.source)


def size_words(entry: comparison.Entry) -> str:
    """A target's size for its notice: counted, or, for a full model the counter has no rules for
    (``architectures.uncounted_target``, walk BL6), what its checkpoint stores, else that it was not read."""
    from comparelib.models import architectures

    if entry.spec.dialect != architectures.UNCOUNTED:
        return f"{_count_words(entry.count.total)} parameters"
    said = "the parameter counter has no rules for its architecture"
    if entry.count.total:
        return f"{_count_words(entry.count.total)} parameters stored in its checkpoint; {said}"
    return f"its size not read here: {said}"


def own_mtp(entry: comparison.Entry) -> bool:
    """Whether a target model has MTP layers of its own: counted, or declared by an uncounted target's config."""
    from comparelib.models import architectures

    if entry.count.mtp > 0:
        return True
    return (
        entry.spec.dialect == architectures.UNCOUNTED and architectures.declared_mtp_layers(entry.spec.raw_config) > 0
    )


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
        f"{size_words(entry)}), not a draft: it is what a draft speculates for. "
        # its own MTP registry entry is the target itself, not a published draft
        + drafts_text(hub_id, drafts, own_mtp=own_mtp(entry))
        + " Paste your draft in the sidebar, and use this model as the target on Compare drafts."
        + "".join(f" ({n[0].upper()}{n[1:]}.)" for n in entry.spec.notes if n.startswith(SHIPPED_NOTE))
    )
    return TargetNotice(hub_id, entry.spec.architecture, entry.spec.num_hidden_layers, drafts, sentence)
