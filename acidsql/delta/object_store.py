"""Tables on object stores: Amazon S3 and S3-compatible stores, Google Cloud Storage, Azure Blob
Storage / ADLS Gen2, through `obstore` (the Python binding of Rust's `object_store`, the same
library delta-rs stores tables with).

A commit is a create-only PUT (`PutMode.Create`: S3 and Azure `If-None-Match: *`, GCS
`ifGenerationMatch=0`); the store's "already exists / precondition failed" answer (412, or
409 for a concurrent conditional write) becomes `CommitFileExists`. Every other object is a
plain PUT, which object stores make visible whole or not at all. Listing is by prefix.

Configuration: the store's own environment variables (read by object_store: `AWS_*`,
`GOOGLE_*`, `AZURE_*`, the names deltalake uses) and explicit `storage_options`, which win.
Keys are case-insensitive and take the names deltalake takes (`aws_access_key_id`,
`AWS_ENDPOINT_URL`, `aws_allow_http`, `google_service_account`, `azure_storage_account_name`,
`timeout`, `max_retries`, ...). `AWS_PROFILE` / `aws_profile` resolve through boto3 when
no key is given. Secrets never appear in reprs or error messages (`redact`).

Before the first commit through a store, acidsql checks that the store honours create-only
writes: it creates a scratch object under the table's `_delta_log/` twice and expects the
second to be refused. A store that accepts both would let two writers commit the same version
(one silently losing its commit); it is refused unless the storage option
`acidsql.unsafe_no_conditional_put=true` says the user accepts that (one writer at a time).
The answer is cached per store (endpoint and bucket) for the process.
"""
from __future__ import annotations

import datetime as _dt
import os
import re
import threading
import uuid
import warnings
from collections.abc import Iterator, Mapping
from typing import IO, Any, Optional

from acidsql.delta import storage as _storage
from acidsql.delta.errors import CommitFileExists, StorageError, UnsafeStorageError, UnsupportedStorageError
from acidsql.delta.storage import OBJECT_STORE_SCHEMES, AtomicWriter, Storage, _version_of

UNSAFE_NO_CONDITIONAL_PUT = "acidsql.unsafe_no_conditional_put"
ACIDSQL_OPTIONS = (UNSAFE_NO_CONDITIONAL_PUT,)
PROBE_PREFIX = ".acidsql-conditional-put-probe-"

# object_store's HTTP client settings (ClientConfigKey), accepted with or without the store's
# prefix (`aws_allow_http`, `allow_http`), as deltalake accepts them.
CLIENT_KEYS = frozenset({
    "allow_http", "allow_invalid_certificates", "connect_timeout", "default_content_type", "http1_only",
    "http2_only", "http2_keep_alive_interval", "http2_keep_alive_timeout", "http2_keep_alive_while_idle",
    "pool_idle_timeout", "pool_max_idle_per_host", "proxy_url", "proxy_ca_certificate", "proxy_excludes",
    "randomize_addresses", "timeout", "user_agent",
})
RETRY_KEYS = frozenset({"max_retries", "retry_timeout"})
PROFILE_KEYS = frozenset({"aws_profile", "profile"})
_PREFIXES = ("aws_", "google_", "azure_storage_", "azure_")
# The standard environment variables of each store (the names object_store, deltalake and the
# SDKs read). The driver's values travel with the storage to Spark executors, so the job runs
# with the configuration it was started with (an executor's own environment fills the rest).
ENVIRONMENT = {
    "s3": ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION", "AWS_DEFAULT_REGION",
           "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT", "AWS_ALLOW_HTTP", "AWS_PROFILE",
           "AWS_VIRTUAL_HOSTED_STYLE_REQUEST", "AWS_SKIP_SIGNATURE", "AWS_REQUEST_PAYER", "AWS_CONDITIONAL_PUT",
           "AWS_SERVER_SIDE_ENCRYPTION", "AWS_SSE_KMS_KEY_ID", "AWS_SSE_BUCKET_KEY_ENABLED", "AWS_ROLE_ARN",
           "AWS_ROLE_SESSION_NAME", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_STS_ENDPOINT"),
    "gcs": ("GOOGLE_SERVICE_ACCOUNT", "GOOGLE_SERVICE_ACCOUNT_PATH", "GOOGLE_SERVICE_ACCOUNT_KEY",
            "GOOGLE_APPLICATION_CREDENTIALS", "GOOGLE_SKIP_SIGNATURE"),
    "azure": ("AZURE_STORAGE_ACCOUNT_NAME", "AZURE_STORAGE_ACCOUNT_KEY", "AZURE_STORAGE_SAS_KEY",
              "AZURE_STORAGE_SAS_TOKEN", "AZURE_STORAGE_TOKEN", "AZURE_STORAGE_CLIENT_ID", "AZURE_STORAGE_CLIENT_SECRET",
              "AZURE_STORAGE_TENANT_ID", "AZURE_CLIENT_ID", "AZURE_CLIENT_SECRET", "AZURE_TENANT_ID",
              "AZURE_STORAGE_USE_EMULATOR", "AZURE_STORAGE_ENDPOINT", "AZURE_ENDPOINT", "AZURE_USE_FABRIC_ENDPOINT",
              "AZURE_USE_AZURE_CLI", "AZURE_SKIP_SIGNATURE", "AZURE_ALLOW_HTTP", "AZURE_FEDERATED_TOKEN_FILE"),
}


def resolved_options(kind: str, options: Optional[Mapping[str, Any]] = None) -> dict[str, str]:
    """`options` plus the store's standard environment variables they do not override."""
    given = {str(k).strip().lower(): str(v) for k, v in (options or {}).items()}
    shorts = {_short_key(k) for k in given}
    families = [{"endpoint", "endpoint_url", "endpoint_url_s3"}, {"region", "default_region"}]
    for family in families:
        if shorts & family:
            shorts |= family  # an explicit endpoint (region) replaces every environment spelling of it
    out = {}
    for name in ENVIRONMENT.get(kind, ()):
        value = os.environ.get(name)
        key = name.lower()
        if value is not None and _short_key(key) not in shorts and key not in given:
            out[key] = value
    if "aws_default_region" in out:
        region = out.pop("aws_default_region")
        if "region" not in shorts:
            out.setdefault("aws_region", region)
    if "aws_access_key_id" in given or "access_key_id" in shorts:
        out.pop("aws_profile", None)  # explicit keys win over a profile from the environment
    if kind == "gcs" and "google_application_credentials" in out:
        out.setdefault("google_service_account", out.pop("google_application_credentials"))
    return {**out, **given}


# Option and environment names whose values are secrets (or identify a credential).
_SECRET_NAME = re.compile(r"secret|token|password|passwd|sas|signature|credential|private|key", re.I)
_SECRET_ENV = re.compile(r"^(AWS|GOOGLE|AZURE|AZURE_STORAGE|GCS|GCP)_", re.I)


def _truthy(value: Any) -> bool:
    return str(value).strip().lower() in ("1", "true", "yes", "on")


def _short_key(key: str) -> str:
    for prefix in _PREFIXES:
        if key.startswith(prefix):
            return key[len(prefix):]
    return key


def _seconds(text: str) -> float:
    """'30s', '2m', '500ms', '1h' or a plain number of seconds."""
    t = str(text).strip().lower()
    for unit, factor in (("ms", 0.001), ("s", 1.0), ("m", 60.0), ("h", 3600.0)):
        if t.endswith(unit) and t[: -len(unit)].replace(".", "", 1).isdigit():
            return float(t[: -len(unit)]) * factor
    return float(t)


class StorageOptions(Mapping[str, str]):
    """Explicit storage options (lower-cased keys). Its repr names the keys, never the values."""

    def __init__(self, options: Optional[Mapping[str, Any]] = None):
        self._items = {str(k).strip().lower(): str(v) for k, v in (options or {}).items()}

    def __getitem__(self, key: str) -> str:
        return self._items[key.lower()]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"StorageOptions(keys={sorted(self._items)})"

    def __hash__(self) -> int:
        return hash(tuple(sorted(self._items.items())))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mapping) and dict(self.items()) == {str(k).lower(): str(v) for k, v in other.items()}

    def secrets(self) -> list[str]:
        """Values that must not be shown: those of secret-looking keys, and of the store
        environment variables with secret-looking names."""
        found = [v for k, v in self._items.items() if _SECRET_NAME.search(k)]
        found += [v for k, v in os.environ.items() if _SECRET_ENV.match(k) and _SECRET_NAME.search(k)]
        return sorted({v for v in found if len(v) >= 4}, key=len, reverse=True)

    def flag(self, key: str) -> bool:
        return _truthy(self._items.get(key, "false"))


def redact(text: str, options: Optional[StorageOptions] = None) -> str:
    """`text` without secrets: known secret values replaced by ***, URL query strings (which
    carry Azure SAS tokens and presigned signatures) cut off."""
    for secret in (options or StorageOptions()).secrets():
        text = text.replace(secret, "***")
    return re.sub(r"(https?://[^\s?]+)\?[^\s]*", r"\1?***", text)


def store_config(location: str, options: Optional[Mapping[str, Any]] = None) -> dict[str, Any]:
    """The keyword arguments `obstore.store.from_url(location, **kwargs)` gets for `options`:
    `config` (store keys), `client_options`, `retry_config` and, for an AWS profile, a
    `credential_provider`. Unknown keys are left for obstore to refuse by name."""
    opts = options if isinstance(options, StorageOptions) else StorageOptions(options)
    config: dict[str, str] = {}
    client: dict[str, str] = {}
    retry: dict[str, Any] = {}
    profile: Optional[str] = None
    for key, value in opts.items():
        if key in ACIDSQL_OPTIONS:
            continue
        short = _short_key(key)
        if key in PROFILE_KEYS:
            profile = value
        elif short in CLIENT_KEYS:
            client[short] = value
        elif short in RETRY_KEYS:
            if short == "max_retries":
                retry["max_retries"] = int(value)
            else:
                retry["retry_timeout"] = _dt.timedelta(seconds=_seconds(value))
        elif key.startswith("acidsql."):
            raise UnsupportedStorageError(f"unknown acidsql storage option {key!r} (known: {', '.join(ACIDSQL_OPTIONS)})")
        else:
            config[key] = value
    kwargs: dict[str, Any] = {"config": config}
    if client:
        # Given client options replace those object_store reads from the environment: keep
        # the environment's for the keys not given (AWS_ALLOW_HTTP, ...).
        env_prefix = {"s3": "AWS_", "gcs": "GOOGLE_", "azure": "AZURE_"}.get(
            OBJECT_STORE_SCHEMES.get(_storage.location_scheme(location) or ""), "")
        for name in CLIENT_KEYS - set(client):
            value = os.environ.get(env_prefix + name.upper())
            if value is not None:
                client[name] = value
        kwargs["client_options"] = client
    if retry:
        kwargs["retry_config"] = retry
    kind = OBJECT_STORE_SCHEMES.get(_storage.location_scheme(location) or "")
    if kind == "s3" and profile:
        if any(_short_key(k) in ("access_key_id", "secret_access_key") for k in config):
            raise StorageError("give either an AWS profile (aws_profile / AWS_PROFILE) or access keys, not both")
        kwargs["credential_provider"] = _profile_credentials(profile)
    return kwargs


def _profile_credentials(profile: str) -> Any:
    try:
        import boto3
        from obstore.auth.boto3 import Boto3CredentialProvider
    except ImportError:
        raise StorageError(f"the AWS profile {profile!r} (AWS_PROFILE / aws_profile) needs boto3 to be resolved: "
                           "pip install boto3, or give aws_access_key_id / aws_secret_access_key") from None
    try:
        return Boto3CredentialProvider(boto3.session.Session(profile_name=profile))
    except Exception as e:  # botocore's ProfileNotFound and friends
        raise StorageError(f"AWS profile {profile!r}: {redact(str(e))}") from None


# ---- the conditional-put check, cached per store ------------------------------------------------
_CONDITIONAL_PUT: dict[tuple, bool] = {}
_CONDITIONAL_PUT_LOCK = threading.Lock()


def forget_conditional_put_checks() -> None:
    """Drop the cached answers (tests that change what a store does)."""
    with _CONDITIONAL_PUT_LOCK:
        _CONDITIONAL_PUT.clear()


class _ObjectWriter(AtomicWriter):
    """obstore's buffered writer (a multipart upload for large files, one PUT for small ones):
    the object appears when the upload completes, on close."""

    def __init__(self, storage: "ObjectStorage", rel: str):
        super().__init__()
        import obstore

        self._storage, self._rel = storage, rel
        self._done = False
        self._writer = storage._call("write", rel, lambda: obstore.open_writer(storage._store, rel))

    def write(self, data) -> int:  # type: ignore[override]
        view = memoryview(data).cast("B")
        self._storage._call("write", self._rel, lambda: self._writer.write(view))
        self.bytes_written += view.nbytes
        return view.nbytes

    def abort(self) -> None:
        # Not closing the writer aborts the multipart upload: nothing appears.
        self._done = True
        super().close()

    def close(self) -> None:
        if self._done:
            return
        self._done = True
        if _storage.FAULTS is not None:
            _storage.FAULTS("write.before-publish", self._rel)
        self._storage._call("write", self._rel, self._writer.close)
        super().close()
        if _storage.FAULTS is not None:
            _storage.FAULTS("write.after-publish", self._rel)


class ObjectStorage(Storage):
    """A table (or warehouse) root on an object store, e.g. `s3://bucket/warehouse/db/t`.

    Picklable: it travels to Spark executors as its location and explicit options, and each
    process opens its own connection pool."""

    def __init__(self, location: str, options: Optional[Mapping[str, Any]] = None, *, resolved: bool = False):
        self.root = _storage.normalize_location(location)
        if not _storage.is_object_store_location(self.root):
            raise UnsupportedStorageError(f"{location} is not an object-store URI")
        self.kind = OBJECT_STORE_SCHEMES[_storage.location_scheme(self.root) or ""]
        # The explicit options plus this process's store environment (`resolved`: already so).
        self.options = StorageOptions(options if resolved else resolved_options(self.kind, options))
        self.unsafe_no_conditional_put = self.options.flag(UNSAFE_NO_CONDITIONAL_PUT)
        self._store = self._open_store()

    def __reduce__(self):
        return (_rebuild, (self.root, dict(self.options.items())))

    def __repr__(self) -> str:
        return f"ObjectStorage({self.root!r})"

    def _open_store(self) -> Any:
        from obstore.store import from_url

        url = self.root
        if url.startswith("s3a://"):
            url = "s3://" + url[len("s3a://"):]
        try:
            return from_url(url, **store_config(self.root, self.options))
        except UnsupportedStorageError:
            raise
        except BaseException as e:  # obstore's config errors, and pyo3 panics on bad keys
            if isinstance(e, (KeyboardInterrupt, SystemExit)):
                raise
            raise StorageError(f"cannot open {self.root}: {self._cause(e)}") from None

    # ---- errors ---------------------------------------------------------------------------
    def _cause(self, e: BaseException) -> str:
        """One line a user can act on, without credentials."""
        text = redact(str(e), self.options)
        first = text.strip().splitlines()[0] if text.strip() else type(e).__name__
        first = first.split("<?xml", 1)[0].rstrip(": ")
        name = type(e).__name__
        if re.search(r"/latest/api/token|/latest/meta-data|169\.254\.169\.254|metadata\.google\.internal", text):
            return ("no credentials: none were given (storage options, the store's environment variables, a "
                    f"profile) and no instance-metadata service supplied any ({first})")
        if re.search(r"NoSuchBucket|ContainerNotFound|bucket does not exist|The specified bucket", text):
            return f"the bucket (or container) does not exist ({first})"
        if "PermissionDenied" in name or re.search(r"status code: 403\b|AccessDenied|Forbidden|InvalidAccessKeyId|"
                                                    r"SignatureDoesNotMatch", text):
            return f"access denied: check the credentials and the bucket's permissions ({first})"
        if "Unauthenticated" in name or re.search(r"status code: 401\b|Unauthorized", text):
            return f"not authenticated: no valid credentials ({first})"
        if re.search(r"timed out|kind: Timeout|TimedOut|deadline has elapsed", text):
            return f"the request timed out ({first})"
        if re.search(r"error sending request|[Cc]onnect(ion)? (refused|error)|dns error|kind: Connect", text):
            return f"cannot reach the store's endpoint ({first})"
        if "UnknownConfigurationKey" in name:
            return f"unknown storage option ({first})"
        return first

    def _error(self, action: str, rel: str, e: BaseException) -> StorageError:
        return StorageError(f"cannot {action} {self.uri(rel)}: {self._cause(e)}")

    def _call(self, action: str, rel: str, fn):
        from obstore.exceptions import AlreadyExistsError, PreconditionError

        try:
            return fn()
        except (AlreadyExistsError, PreconditionError):
            raise CommitFileExists(rel, _version_of(rel)) from None
        except FileNotFoundError as e:
            if re.search(r"NoSuchBucket|ContainerNotFound|bucket does not exist", str(e)):
                raise self._error(action, rel, e) from None
            raise FileNotFoundError(self.uri(rel)) from None
        except (CommitFileExists, StorageError):
            raise
        except Exception as e:
            raise self._error(action, rel, e) from None

    # ---- Storage ---------------------------------------------------------------------------
    def uri(self, rel: str = "") -> str:
        rel = rel.strip("/")
        return f"{self.root}/{rel}" if rel else self.root

    def read_bytes(self, rel: str) -> bytes:
        import obstore

        return self._call("read", rel, lambda: bytes(obstore.get(self._store, rel).bytes()))

    def open_read(self, rel: str) -> IO[bytes]:
        import obstore

        reader = self._call("read", rel, lambda: obstore.open_reader(self._store, rel, buffer_size=4 * 1024 * 1024))
        return _ReadableAdapter(reader, self, rel)

    def open_write(self, rel: str) -> AtomicWriter:
        return _ObjectWriter(self, rel)

    def _put(self, rel: str, data: bytes, mode: str) -> None:
        import obstore

        if _storage.FAULTS is not None:
            # A PUT is all or nothing: "partial" and "before-publish" both stop before it is sent.
            _storage.FAULTS("write.partial", rel)
            _storage.FAULTS("write.before-publish", rel)
        self._call("write", rel, lambda: obstore.put(self._store, rel, data, mode=mode, use_multipart=False))
        if _storage.FAULTS is not None:
            _storage.FAULTS("write.after-publish", rel)

    def write_if_absent(self, rel: str, data: bytes) -> None:
        if not self.check_conditional_put(rel.rsplit("/", 1)[0] if "/" in rel else ""):
            # The user opted in on a store without create-only writes: best effort, one writer.
            if self.exists(rel):
                raise CommitFileExists(rel, _version_of(rel))
            self._put(rel, data, "overwrite")
            return
        # object_store answers both 412 (the key exists) and 409 (S3's ConditionalRequestConflict:
        # another conditional write of the key is in flight) with AlreadyExists: `_call` makes
        # that CommitFileExists, and the transaction reads the winner and retries.
        self._put(rel, data, "create")

    def write_bytes(self, rel: str, data: bytes) -> None:
        self._put(rel, data, "overwrite")

    def exists(self, rel: str) -> bool:
        import obstore

        rel = rel.strip("/")
        if rel:
            try:
                self._call("read", rel, lambda: obstore.head(self._store, rel))
                return True
            except FileNotFoundError:
                pass
        # A "directory": any object below it (one listing request).
        prefix = rel + "/" if rel else None
        first = self._call("list", rel, lambda: next(iter(obstore.list(self._store, prefix, chunk_size=1)), None))
        return bool(first)

    def list_dir(self, rel: str) -> list[str]:
        import obstore

        rel = rel.strip("/")
        listing = self._call("list", rel, lambda: obstore.list_with_delimiter(self._store, rel or None))
        names = [p.rstrip("/").rsplit("/", 1)[-1] for p in listing["common_prefixes"]]
        names += [o["path"].rsplit("/", 1)[-1] for o in listing["objects"]]
        return sorted(set(names))

    def list_dir_from(self, rel: str, start: str) -> list[str]:
        import obstore

        rel = rel.strip("/")
        prefix = rel + "/" if rel else ""
        # `offset`: keys after it (S3 start-after). Every name >= start is > the key `prefix + start`
        # or equal to it; the equal one is checked for separately below.
        chunks = self._call("list", rel, lambda: list(obstore.list(self._store, prefix or None,
                                                                   offset=prefix + start, chunk_size=1000)))
        names = set()
        for chunk in chunks:
            for o in chunk:
                tail = o["path"][len(prefix):]
                names.add(tail.split("/", 1)[0])
        return sorted(n for n in names if n >= start)

    def delete(self, rel: str) -> None:
        import obstore

        try:
            self._call("delete", rel, lambda: obstore.delete(self._store, rel))
        except FileNotFoundError:
            pass

    def _head(self, rel: str) -> dict[str, Any]:
        import obstore

        return self._call("read", rel, lambda: obstore.head(self._store, rel))

    def size(self, rel: str) -> int:
        return int(self._head(rel)["size"])

    def mtime_ms(self, rel: str) -> int:
        return int(self._head(rel)["last_modified"].timestamp() * 1000)

    def walk_files(self, rel: str = "") -> Iterator[str]:
        import obstore

        rel = rel.strip("/")
        chunks = self._call("list", rel, lambda: list(obstore.list(self._store, (rel + "/") if rel else None,
                                                                   chunk_size=1000)))
        yield from sorted(o["path"] for chunk in chunks for o in chunk)

    def walk_files_with_meta(self, rel: str = "") -> list[tuple[str, int, int]]:
        """(path, size, mtime_ms) of every file below `rel`, from the listing alone."""
        import obstore

        rel = rel.strip("/")
        chunks = self._call("list", rel, lambda: list(obstore.list(self._store, (rel + "/") if rel else None,
                                                                   chunk_size=1000)))
        return sorted((o["path"], int(o["size"]), int(o["last_modified"].timestamp() * 1000))
                      for chunk in chunks for o in chunk)

    # ---- the conditional-put check ---------------------------------------------------------
    def _store_key(self) -> tuple:
        head = self.root.split("://", 1)[1].split("/", 1)[0]
        endpoint = sorted(v for k, v in self.options.items() if "endpoint" in k or k.endswith("use_emulator"))
        return (self.kind, head, tuple(endpoint), self.unsafe_no_conditional_put)

    def check_conditional_put(self, log_dir: str) -> bool:
        """Whether create-only writes are honoured (probed once per store and process, with a
        scratch object in `log_dir`). False only when the user opted in to a store without
        them; raises UnsafeStorageError when they did not."""
        key = self._store_key()
        with _CONDITIONAL_PUT_LOCK:
            known = _CONDITIONAL_PUT.get(key)
        if known is None:
            known = self._probe(log_dir)
            with _CONDITIONAL_PUT_LOCK:
                _CONDITIONAL_PUT[key] = known
        if known:
            return True
        if not self.unsafe_no_conditional_put:
            raise UnsafeStorageError(
                f"{self.uri(log_dir)}: this store does not honour create-only writes (If-None-Match: *): it "
                "accepted a second create of the same object. Two writers could then both commit the same "
                "version and one commit would be silently lost, so acidsql refuses to commit here. Use a "
                "store with conditional writes (S3 since 2024, MinIO, R2, GCS, Azure), or, if only one "
                f"writer ever writes this table, set the storage option {UNSAFE_NO_CONDITIONAL_PUT}=true.")
        warnings.warn(f"{self.root}: committing without create-only writes ({UNSAFE_NO_CONDITIONAL_PUT}=true): "
                      "safe only while one writer at a time writes this table", stacklevel=3)
        return False

    def _probe(self, log_dir: str) -> bool:
        import obstore
        from obstore.exceptions import AlreadyExistsError, PreconditionError

        rel = f"{log_dir}/{PROBE_PREFIX}{uuid.uuid4().hex}" if log_dir else f"{PROBE_PREFIX}{uuid.uuid4().hex}"
        try:
            try:
                self._call("write", rel, lambda: obstore.put(self._store, rel, b"1", mode="create", use_multipart=False))
            except CommitFileExists:
                pass  # a uuid name: only a store that mistakes it could answer so; the second PUT decides
            try:
                obstore.put(self._store, rel, b"2", mode="create", use_multipart=False)
                honoured = False
            except (AlreadyExistsError, PreconditionError):
                honoured = True
            except Exception as e:
                if re.search(r"status code: (501|400)\b|NotImplemented|not supported", str(e)):
                    honoured = False  # the store refuses the header itself
                else:
                    raise self._error("write", rel, e) from None
        finally:
            try:
                obstore.delete(self._store, rel)
            except Exception:
                pass  # a leftover scratch object is ignored by readers and VACUUM (a dot-name)
        return honoured


def _rebuild(root: str, options: dict[str, str]) -> ObjectStorage:
    return ObjectStorage(root, options, resolved=True)


class _ReadableAdapter:
    """obstore's ReadableFile as the file object pyarrow expects (errors mapped to StorageError)."""

    def __init__(self, reader: Any, storage: ObjectStorage, rel: str):
        self._reader, self._storage, self._rel = reader, storage, rel
        self.closed = False

    def read(self, size: int = -1) -> bytes:
        n = None if size is None or size < 0 else size
        return bytes(self._storage._call("read", self._rel, lambda: self._reader.read(n)))

    def seek(self, offset: int, whence: int = 0) -> int:
        return self._reader.seek(offset, whence)

    def tell(self) -> int:
        return self._reader.tell()

    def seekable(self) -> bool:
        return True

    def readable(self) -> bool:
        return True

    def writable(self) -> bool:
        return False

    def size(self) -> int:
        return self._reader.size

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._reader.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()
