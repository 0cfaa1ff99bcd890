"""The two kinds of settings: :class:`Settings`, one object whose every field reads
``FOOTNOTED_<NAME>`` from the environment, and :class:`CollectionSettings`, what each
knowledge base answers with and how it links sources (stored by admins; its defaults for
``top_k`` and ``evidence_threshold`` come from :class:`Settings`).

Every setting here is documented in ``docs/settings.md``; a test fails when one is not.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    field_validator,
)
from pydantic_settings import BaseSettings, SettingsConfigDict

from .errors import InvalidInput
from .outbound import checked_url

DEFAULT_MODEL = "all-MiniLM-L6-v2"


def _default_home() -> Path:
    return Path.home() / ".local" / "share" / "footnoted"


def _default_model_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "footnoted" / "models"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="FOOTNOTED_", extra="ignore")

    home: Path = Field(
        default_factory=_default_home,
        description="Directory holding all state: the SQLite database and vector indexes.",
    )
    embedding_model: str = Field(
        default=DEFAULT_MODEL,
        description=(
            "Sentence-transformers model: the packaged all-MiniLM-L6-v2 by default, "
            "or a path to any sentence-transformers model directory."
        ),
    )
    embedding_precision: Literal["auto", "fp32", "bf16", "int8"] = Field(
        default="auto",
        description=(
            "What embeds chunks. auto: int8 (ONNX Runtime, each chunk alone) where the CPU "
            "multiplies int8 natively and has no AMX, bf16 where it computes bf16 natively "
            "(AMX or AVX512-BF16), fp32 otherwise; fp32, bf16 or int8 force one. Every "
            "precision's vectors share fp32's space (no reindex to switch); questions are "
            "embedded in fp32."
        ),
    )
    model_cache: Path = Field(
        default_factory=_default_model_cache,
        description=(
            "Where the ONNX exports of the embedding model and of the reader are kept (made "
            "from the local weights on first use, shared by every home on the machine)."
        ),
    )
    embedding_batch_size: int = Field(default=32, ge=1, description="Texts per embedding batch.")
    serve_embedding_threads: int = Field(
        default=1,
        ge=1,
        le=256,
        description=(
            "CPU threads each `footnoted serve` process gives the embedding model. Requests "
            "run side by side, so one thread each keeps the cores busy without contention; "
            "command-line ingest, reindex and eval use every core."
        ),
    )
    serve_answering: int = Field(
        default=0,
        ge=0,
        le=1024,
        description=(
            "Questions each `footnoted serve` process works on at once (retrieval and the "
            "extractive answer); more wait their turn. 0 means one per CPU core."
        ),
    )
    chunk_tokens: int = Field(
        default=128,
        ge=32,
        le=512,
        description=(
            "Largest chunk in model tokens (capped at what the embedding model reads). "
            "128 is the length all-MiniLM-L6-v2 was trained on."
        ),
    )
    evidence_threshold: float = Field(
        default=0.35,
        ge=0.0,
        le=1.0,
        validation_alias=AliasChoices("CHAT_EVIDENCE_THRESHOLD", "FOOTNOTED_EVIDENCE_THRESHOLD"),
        description=(
            "Lowest cosine similarity of the best chunk, or of one of its sentences, that lets "
            "an answer through (also read from CHAT_EVIDENCE_THRESHOLD)."
        ),
    )
    reader_threshold: float | None = Field(
        default=None,
        description=(
            "Lowest reader score (best answer span against no answer) that lets an answer "
            "through; unset: the calibrated value shipped with the reader (docs/quality.md). "
            "Lower answers more and refuses less."
        ),
    )
    reader_runtime: Literal["auto", "int8", "float"] = Field(
        default="auto",
        description=(
            "What runs the reader: auto is int8 in ONNX Runtime where the CPU multiplies "
            "int8 natively (VNNI or AMX) and the embedding precision (bf16 or fp32) "
            "elsewhere; int8 or float force one. Each has its own shipped calibration."
        ),
    )
    top_k: int = Field(default=5, ge=1, le=50, description="Chunks retrieved per question.")
    support_contact: str | None = Field(
        default=None,
        max_length=200,
        description=(
            "Whom a refusal tells people to ask when the documents should hold the answer "
            '("the IT help desk, help@example.com"); unset: refusals name no one.'
        ),
    )
    max_file_mb: float = Field(
        default=50.0, gt=0, description="Largest file accepted for ingestion, in megabytes."
    )
    ocr_engine: Literal["auto", "tesseract", "rapidocr", "off"] = Field(
        default="auto",
        description=(
            "What reads scanned PDF pages: auto (Tesseract where installed, else RapidOCR "
            "from the ocr extra), tesseract, rapidocr, or off."
        ),
    )
    max_document_chunks: int = Field(
        default=20_000,
        ge=1,
        description=(
            "Most passages (chunks) one document may make: a file past it fails with "
            "too_large before anything is embedded (20,000 is about 2,000 pages of prose)."
        ),
    )
    collection: str = Field(default="default", description="Collection used when none is named.")
    sync_roots: str = Field(
        default="",
        description=(
            "Folders on the server (comma-separated) that admins may keep a collection in "
            "step with from the admin page or POST /api/admin/sync: the folder they name "
            "must be inside one. Unset: that is off (footnoted sync DIR works as ever)."
        ),
    )
    versions_kept: int = Field(
        default=20,
        ge=0,
        description=(
            "Earlier versions kept of each document (a changed file's previous text, a "
            "deleted document's last), so old answers still open what they quoted; 0 keeps "
            "none."
        ),
    )
    versions_days: float | None = Field(
        default=None,
        gt=0,
        description=(
            "Days an earlier version is kept after it was replaced or deleted; unset: as "
            "long as versions_kept allows."
        ),
    )
    database_url: str | None = Field(
        default=None,
        description=(
            "postgresql:// URL of a PostgreSQL database with pgvector; unset keeps the "
            "SQLite database in the home directory."
        ),
    )
    database_pool_size: int = Field(
        default=10, ge=1, le=200, description="Most PostgreSQL connections per process."
    )

    # -- the command line and a running server -------------------------------------------
    server: str | None = Field(
        default=None,
        description=(
            "URL of a footnoted server that `footnoted ask` asks over HTTP; unset asks the "
            "server running on this home, if any, else answers in the process."
        ),
    )
    token: str | None = Field(
        default=None,
        description=(
            "API token `footnoted ask` sends to the server; unset uses the home's own CLI "
            "token (made on first use, kept in `cli-token`, mode 0600)."
        ),
    )

    # -- HTTP service ---------------------------------------------------------------------
    rate_limit: int = Field(
        default=20, ge=0, description="Chat requests per user per minute; 0 turns the limit off."
    )
    link_secret: str | None = Field(
        default=None,
        description=(
            "Secret that signs public document links; when unset a random one is made "
            "once and kept in the database."
        ),
    )
    link_ttl_s: int = Field(
        default=86400, ge=60, description="How long a signed public document link stays valid."
    )
    parse_timeout_s: float = Field(
        default=120.0,
        gt=0,
        description=(
            "Time limit for parsing and chunking one file (uploads and footnoted ingest), in "
            "seconds, counted from when the file reaches a ready worker; the worker is killed "
            "past it."
        ),
    )
    parse_memory_mb: int = Field(
        default=1024,
        ge=256,
        le=1_048_576,
        description=(
            "Address space a parse worker process may use, in megabytes (one that reads "
            "scanned pages with RapidOCR gets 1,024 more, its runtime's own); a file that "
            "needs more (a decompression bomb) fails and the worker is replaced."
        ),
    )
    sse_keepalive_s: float = Field(
        default=15.0,
        gt=0,
        description="Seconds without an event before a stream sends a keep-alive comment.",
    )
    # -- LLM generation (generation_mode "llm") -------------------------------------------
    generation_mode: Literal["extractive", "llm"] = Field(
        default="extractive",
        description="Default generation mode of collections that do not set their own.",
    )
    llm_base_url: str = Field(
        default="http://127.0.0.1:11434/v1",
        description="Base URL of an OpenAI-compatible API (the part before /chat/completions).",
    )
    outbound_allow: str = Field(
        default="",
        description=(
            "Hosts, addresses and networks (comma-separated: ollama.lan, 10.0.0.5, "
            "10.0.0.0/8) that footnoted may connect to although they are loopback, "
            "link-local or private; every other such address is refused. The host of "
            "FOOTNOTED_LLM_BASE_URL is always allowed."
        ),
    )

    @field_validator("llm_base_url")
    @classmethod
    def _llm_url(cls, value: str) -> str:
        return checked_url(value)

    llm_model: str = Field(default="llama3.1", description="Model name sent to the LLM server.")
    llm_api_key: str | None = Field(
        default=None, description="Bearer token for the LLM server; unset sends none."
    )
    llm_timeout_s: float = Field(
        default=60.0,
        gt=0,
        description="Seconds to wait for the LLM server (to connect, and between tokens).",
    )
    llm_max_tokens: int = Field(
        default=800,
        ge=1,
        description=(
            "Most tokens the LLM may write; sent to the server and enforced here too (a "
            "stream that goes on is cut off and its answer kept as incomplete)."
        ),
    )
    llm_max_bytes: int = Field(
        default=4 * 1024 * 1024,
        ge=1024,
        description="Most bytes footnoted reads from one LLM stream (framing included).",
    )
    llm_max_seconds: float = Field(
        default=300.0,
        gt=0,
        description="Most seconds one LLM answer may stream, from the request on.",
    )
    llm_temperature: float = Field(
        default=0.0, ge=0.0, le=2.0, description="Sampling temperature sent to the LLM."
    )
    stream_pace_ms: int = Field(
        default=0,
        ge=0,
        le=2000,
        description="Pause between streamed answer deltas (a typing effect); 0 sends at once.",
    )
    # -- sign-in through an OpenID Connect provider (docs/users.md) -----------------------
    oidc_issuer: str | None = Field(
        default=None,
        description=(
            "The identity provider's issuer URL (Okta, Entra ID, Keycloak, Google…): the web "
            "UI then offers sign-in there; unset, tokens are the only way in."
        ),
    )
    oidc_client_id: str = Field(
        default="footnoted", min_length=1, description="footnoted's client id at the provider."
    )
    oidc_client_secret: str | None = Field(
        default=None,
        description="The client's secret, for a confidential client; unset: a public one (PKCE).",
    )
    oidc_scopes: str = Field(
        default="openid email profile offline_access",
        description="Scopes asked for; offline_access lets the provider re-vouch for a session.",
    )
    oidc_name: str = Field(
        default="your identity provider",
        min_length=1,
        max_length=60,
        description="The provider's name on the sign-in button (Sign in with …).",
    )
    oidc_admin_group: str | None = Field(
        default=None,
        description=(
            "A group whose members are admins, granted or revoked at every sign-in; unset: "
            "admin rights are given as for any user (footnoted user promote)."
        ),
    )
    oidc_groups_claim: str = Field(
        default="groups", min_length=1, description="The ID token claim that lists the groups."
    )
    oidc_refresh_s: float = Field(
        default=900.0,
        ge=1.0,
        description=(
            "How often a web session opened at the provider is vouched for again (its "
            "refresh token; without one the session ends): a user removed or disabled "
            "there is signed out within this time."
        ),
    )
    oidc_redirect_url: str | None = Field(
        default=None,
        description=(
            "The callback URL registered at the provider; unset: this server's own "
            "/api/auth/oidc/callback as the browser reaches it."
        ),
    )
    oidc_leeway_s: int = Field(
        default=60, ge=0, le=600, description="Clock skew allowed on ID tokens' times."
    )

    @field_validator("oidc_issuer", "oidc_redirect_url")
    @classmethod
    def _oidc_url(cls, value: str | None) -> str | None:
        return None if value is None or not value.strip() else checked_url(value)


# -- per collection ---------------------------------------------------------------------

LinkMode = Literal["none", "authenticated", "public"]
GenerationMode = Literal["extractive", "llm"]
MAX_EXAMPLES = 6
ExampleQuestion = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=300)
]


class CollectionSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    enable_rag: bool = Field(
        default=True, description="Search the documents; off answers without consulting them."
    )
    enable_citations: bool = Field(
        default=True, description="Send citations, referenced indices and spans with answers."
    )
    citation_link_mode: LinkMode = Field(
        default="authenticated",
        description=(
            "download_url on citations: none, an authenticated download route, or a "
            "signed public link that expires."
        ),
    )
    generation_mode: GenerationMode = Field(
        default="extractive",
        description="extractive quotes the documents; llm writes an answer with an LLM.",
    )
    evidence_threshold: float = Field(
        default=0.35, ge=0.0, le=1.0, description="Lowest best-chunk similarity that answers."
    )
    top_k: int = Field(default=5, ge=1, le=50, description="Chunks retrieved per question.")
    example_questions: tuple[ExampleQuestion, ...] = Field(
        default=(),
        max_length=MAX_EXAMPLES,
        description="Questions an empty chat offers, to show what the collection answers.",
    )


def defaults(settings: Settings) -> CollectionSettings:
    return CollectionSettings(
        evidence_threshold=settings.evidence_threshold,
        top_k=settings.top_k,
        generation_mode=settings.generation_mode,
    )


def resolve(stored: dict[str, Any], settings: Settings) -> CollectionSettings:
    """Defaults overlaid with the stored values (unknown stored keys are ignored)."""
    base = defaults(settings).model_dump()
    known = {k: v for k, v in stored.items() if k in CollectionSettings.model_fields}
    return CollectionSettings.model_validate({**base, **known})


def merge(current: CollectionSettings, changes: dict[str, Any]) -> CollectionSettings:
    """Apply a partial update, or raise ``InvalidInput`` naming what is wrong."""
    try:
        return CollectionSettings.model_validate({**current.model_dump(), **changes})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "settings"
        raise InvalidInput(f"{where}: {first['msg']}", code="invalid_settings") from exc
