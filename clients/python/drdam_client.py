"""A client of drdam serve, drdam's memory service: named Dense Associative
Memories (DrDAM or MrDAM) under an HTTP/JSON API at /v1.

One file of Python's standard library (urllib, json). If numpy is
importable, patterns and queries may be numpy arrays (sent as .npy bodies
where the API takes them) and energies, gradients and recalled states come
back as numpy arrays; without numpy (or with Client(..., numpy=False)) they
are lists.

    from drdam_client import Client, DrdamError

    c = Client("http://127.0.0.1:7077", token=None)
    c.create("digits", d=4, beta=30, y=20000, projection="structured")
    c.add("digits", [[0.5, 0, 0.5, 0], [0, 0.5, 0, 0.5]])
    r = c.recall("digits", [[0.5, 0, 0, 0]], mask=[True, True, False, False])
    r["x"]  # the recalled states
    r = c.complete("digits", [[0.5, None, 0.5, None]])  # None (or NaN): missing
    r["x"]  # the completed rows, the visible entries as sent

An error status answered by the server raises DrdamError(status, field,
message); a server that cannot be reached raises urllib's URLError (an
OSError), as urllib does.

Every call is sent again (retries=5 times at most, waiting backoff=0.1 s
doubled at each retry up to 5 s, with jitter, or what a Retry-After header
says) after an answer of 408, 429, 500, 502, 503, 504 or 507, or a failure
of the connection; add, remove and merge send an Idempotency-Key, the same
on each retry, so that the server applies them once. See Client.
"""

import array
import email.utils
import http.client
import json
import random
import socket
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

try:
    import numpy as _np
except ImportError:  # the client works without numpy
    _np = None

__all__ = ["Client", "DrdamError", "npy_bytes", "RETRY_STATUSES"]


class DrdamError(Exception):
    """An error status answered by the server: the HTTP status, the field
    of the request it is about (None if none: "name", "patterns",
    "queries", "Authorization", ...) and the server's message."""

    attempts = 1  # how many times the call was sent (Client's retries)

    def __init__(self, status, field, message):
        super().__init__(status, field, message)
        self.status = status
        self.field = field
        self.message = message

    def __str__(self):
        s = "drdam: %d" % self.status
        if self.field:
            s += " (%s)" % self.field
        s += ": " + self.message
        if self.attempts > 1:
            s += " (the last of %d attempts)" % self.attempts
        return s


# The statuses worth another attempt: a request cut for its slow body
# (408), too many requests (429), a server's failure (500), a proxy's (502,
# 504), a memory being opened or damaged (503), a full disk or memory
# budget (507).
RETRY_STATUSES = frozenset((408, 429, 500, 502, 503, 504, 507))

# The failures of a connection worth another attempt (with URLError whose
# reason is an OSError: refused, unreachable, a timeout of the connection).
_RETRY_ERRORS = (ConnectionError, socket.timeout, http.client.IncompleteRead, http.client.BadStatusLine)


def _check_key(key):
    if not (isinstance(key, str) and 1 <= len(key) <= 255 and all("!" <= ch <= "~" for ch in key)):
        raise ValueError("idempotency key %r: want 1-255 printable ASCII characters, no spaces" % (key,))
    return key


def _retry_after(headers):
    """The seconds a Retry-After header asks to wait (seconds or an HTTP
    date), or None."""
    v = (headers.get("Retry-After") if headers is not None else None) or ""
    v = v.strip()
    if not v:
        return None
    if v.isdigit():
        return float(v)
    try:
        t = email.utils.parsedate_to_datetime(v)
    except (TypeError, ValueError, IndexError):
        return None
    if t is None:
        return None
    return max(t.timestamp() - time.time(), 0.0)


def _is_array(x):
    return _np is not None and isinstance(x, _np.ndarray)


def _rows(x):
    """x as a list of rows of floats (a numpy array, a list of rows, or
    one row)."""
    if _is_array(x):
        x = x.tolist()
    x = list(x)
    if x and not isinstance(x[0], (list, tuple)) and not _is_array(x[0]):
        x = [x]  # one row
    return [[float(v) for v in row] for row in x]


def _missing_rows(x):
    """x (a numpy array, a list of rows, or one row) as a list of rows of
    floats, None for a missing entry (None or NaN): JSON's null."""
    if _is_array(x):
        x = x.tolist()
    x = list(x)
    if x and not isinstance(x[0], (list, tuple)) and not _is_array(x[0]):
        x = [x]  # one row
    out = []
    for i, row in enumerate(x):
        r = []
        for j, v in enumerate(row.tolist() if _is_array(row) else row):
            if v is None:
                r.append(None)
                continue
            v = float(v)
            if v != v:
                r.append(None)
            elif v in (float("inf"), float("-inf")):
                raise ValueError("row %d, column %d: %r has no JSON (a missing entry is None or NaN)" % (i + 1, j + 1, v))
            else:
                r.append(v)
        out.append(r)
    return out


def npy_bytes(x):
    """Return the .npy file (little-endian float64, C order, 2-D) of x, a
    numpy array or a list of rows; numpy is not needed."""
    if _is_array(x):
        a = _np.ascontiguousarray(x, dtype="<f8")
        if a.ndim == 1:
            a = a.reshape(1, -1)
        shape, data = a.shape, a.tobytes()
    else:
        rows = _rows(x)
        d = len(rows[0]) if rows else 0
        if any(len(r) != d for r in rows):
            raise ValueError("rows of different lengths")
        flat = array.array("d", (v for r in rows for v in r))
        if sys.byteorder == "big":
            flat.byteswap()
        shape, data = (len(rows), d), flat.tobytes()
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d), }" % tuple(shape)
    pad = 64 - (10 + len(header) + 1) % 64
    header = (header + " " * (pad % 64) + "\n").encode("latin1")
    return b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header + data


class Client:
    """A client of the drdam server at base_url ("http://127.0.0.1:7077"),
    with its bearer token if it has one, and a timeout in seconds for each
    attempt of a request. numpy: None uses numpy arrays if numpy is
    importable, False never, True always (ImportError without numpy).

    A call is sent again, retries times at most (0: never), after an
    answer of a status of RETRY_STATUSES or a failure of the connection
    (URLError of an OSError, ConnectionError, a socket timeout, an answer
    cut short), waiting backoff seconds before the first retry and twice
    as long before each next, up to max_backoff (5 s), each wait drawn in
    the upper half of its span; or what a Retry-After header says (at most
    max_backoff). Other errors are raised at once. The error of the last
    attempt is raised, with an attribute attempts (the number made).

    add, remove and merge send an Idempotency-Key header (their
    idempotency_key argument, or a fresh uuid4 hex per call), the same on
    each retry: a server that already applied the write answers with the
    first answer and applies nothing. idempotency_keys=False sends none
    unless a call gives one; then a retry of a write whose answer was lost
    applies it again (patterns stored twice): use retries=0 with it
    unless that is acceptable."""

    max_backoff = 5.0

    def __init__(self, base_url, token=None, timeout=60, numpy=None, retries=5, backoff=0.1, idempotency_keys=True):
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout
        if numpy and _np is None:
            raise ImportError("numpy=True, but numpy is not installed")
        self.numpy = _np is not None if numpy is None else bool(numpy)
        self.retries = max(int(retries), 0)
        self.backoff = float(backoff)
        self.idempotency_keys = bool(idempotency_keys)

    # The transport.

    def _key(self, key):
        """The Idempotency-Key of a write: key, checked, if not None; else
        a fresh one (None if the client sends none)."""
        if key is not None:
            return _check_key(key)
        return uuid.uuid4().hex if self.idempotency_keys else None

    def _delay(self, attempt, wait):
        """The seconds to wait after attempt n: wait (a Retry-After) if not
        None, else backoff * 2**(n-1) with equal jitter; at most
        max_backoff."""
        if wait is not None:
            return min(wait, self.max_backoff)
        d = min(self.backoff * 2 ** min(attempt - 1, 60), self.max_backoff)
        return random.uniform(d / 2, d)

    def _request(self, method, path, body=None, ctype=None, raw=False, key=None):
        """Send a request, again after an answer or a failure worth it, and
        return its status and its answer (decoded JSON, or the bytes if
        raw). body: bytes, or an object sent as JSON; key: the
        Idempotency-Key, if any."""
        headers = {"Accept": "application/json"}
        if body is not None and not isinstance(body, (bytes, bytearray)):
            body = json.dumps(body, allow_nan=False).encode()
            ctype = "application/json"
        if body is not None:
            body = bytes(body)
            headers["Content-Type"] = ctype or "application/octet-stream"
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        if key is not None:
            headers["Idempotency-Key"] = key
        attempt = 0
        while True:
            attempt += 1
            req = urllib.request.Request(self.base_url + path, data=body, method=method, headers=headers)
            wait = None
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                    data = resp.read()
                    status = resp.status
                break
            except urllib.error.HTTPError as e:
                err, retry, wait = _error_of(e), e.code in RETRY_STATUSES, _retry_after(e.headers)
            except urllib.error.URLError as e:
                err, retry = e, isinstance(e.reason, OSError)
            except _RETRY_ERRORS as e:
                err, retry = e, True
            if not retry or attempt > self.retries:
                err.attempts = attempt
                if attempt > 1 and not isinstance(err, DrdamError) and hasattr(err, "add_note"):
                    err.add_note("drdam_client: the last of %d attempts" % attempt)
                raise err
            time.sleep(self._delay(attempt, wait))
        if raw:
            return status, data
        return status, json.loads(data.decode("utf-8"))

    def _path(self, name, rest=""):
        return "/v1/memories/" + urllib.parse.quote(name, safe="") + rest

    def _array(self, x):
        """x (numbers, or rows of numbers, from JSON) as a numpy array, or
        as floats (JSON writes 0.0 as 0)."""
        if self.numpy:
            return _np.asarray(x, dtype=float)
        return [[float(v) for v in r] if isinstance(r, list) else float(r) for r in x]

    # The API.

    def health(self):
        """GET /healthz (no token needed): {"status": "ok", "memories": n}."""
        return self._request("GET", "/healthz")[1]

    def create(self, name, config=None, **fields):
        """Create the memory name from a configuration: a dict and/or
        keyword fields, drdam encode's flags (d required; beta, y,
        projection, seed, basis, similarity, rep, ...). Return (info,
        created); created is False if it existed alike (a different
        configuration raises a 409)."""
        cfg = dict(config or {})
        cfg.update(fields)
        status, info = self._request("PUT", self._path(name), cfg)
        return info, status == 201

    def list(self):
        """Every memory: a list of dicts (name, config, count, bytes, seq,
        status)."""
        return self._request("GET", "/v1/memories")[1]["memories"]

    def get(self, name):
        """The configuration and count of the memory name."""
        return self._request("GET", self._path(name))[1]

    def delete(self, name):
        """Delete the memory name, files and all."""
        self._request("DELETE", self._path(name))

    def _write(self, name, rest, patterns, npy, key):
        key = self._key(key)
        if npy is None:
            npy = _is_array(patterns)
        if npy:
            return self._request("POST", self._path(name, rest), npy_bytes(patterns), "application/x-npy", key=key)[1]
        return self._request("POST", self._path(name, rest), {"patterns": _rows(patterns)}, key=key)[1]

    def add(self, name, patterns, npy=None, idempotency_key=None):
        """Add patterns (rows of D values: a numpy array or lists) to the
        memory name; return {"added": n, "count": k} once they are in the
        server's synced log. A numpy array is sent as a .npy body, lists as
        JSON (npy=True sends them as .npy too). idempotency_key: 1-255
        printable ASCII characters without spaces, sent as the
        Idempotency-Key (None: a fresh one; see Client)."""
        return self._write(name, "/patterns", patterns, npy, idempotency_key)

    def limits(self):
        """GET /v1/limits: what one request may ask of the server, {"max_body"
        (bytes), "max_batch" (rows), "max_d", "max_y", "max_steps",
        "timeout_seconds", "max_memory" (bytes)}."""
        return self._request("GET", "/v1/limits")[1]

    def add_batches(self, name, patterns, progress=None, npy=None):
        """Add patterns (rows of D values) in batches the server takes: at
        most its max_batch rows and max_body bytes each (limits()), each
        an add() with its own idempotency key and retries. progress, if
        given, is called as progress(done, total) after each batch. Return
        {"added": n, "count": k} of the whole. On an error, the batches
        before the failing one are stored and the error is raised."""
        rows = patterns if _is_array(patterns) else _rows(patterns)
        n = len(rows)
        if npy is None:
            npy = _is_array(patterns)
        lim = self.limits()
        d = len(rows[0]) if n else 1
        # A .npy value is 8 bytes; a JSON number at most 25 (repr of a
        # float64, a comma), with room for the brackets and the header.
        per_row = 8 * d if npy else 26 * d + 2
        per = min(lim["max_batch"], (lim["max_body"] - 256) // per_row)
        if per < 1:
            raise ValueError("one row of %d values does not fit the server's body limit of %d bytes" % (d, lim["max_body"]))
        added, count = 0, None
        for lo in range(0, n, per):
            hi = min(n, lo + per)
            out = self.add(name, rows[lo:hi], npy=npy)
            added += out.get("added", 0)
            count = out.get("count")
            if progress is not None:
                progress(hi, n)
        return {"added": added, "count": count}

    def remove(self, name, patterns, npy=None, idempotency_key=None):
        """Remove patterns from the memory name: {"removed": n, "count": k}."""
        return self._write(name, "/patterns:remove", patterns, npy, idempotency_key)

    def energy(self, name, queries, grad=False):
        """The energies of the queries (rows of D values) under the memory
        name: {"energy": [...]}, with "grad" (a row per query) if grad;
        numpy arrays if numpy is in use."""
        body = {"queries": _rows(queries)}
        if grad:
            body["grad"] = True
        out = self._request("POST", self._path(name, "/energy"), body)[1]
        out["energy"] = self._array(out["energy"])
        if "grad" in out:
            out["grad"] = self._array(out["grad"])
        return out

    def recall(self, name, queries, mask=None, step=None, max_steps=None, tol=None, box=None):
        """Descend the energy of the memory name from the queries. mask: D
        booleans for every query, or a row per query (True: clamped);
        step (0.1), max_steps (300), tol (1e-6; 0 runs every step), box
        (lo, hi). Return {"x": final states, "steps": [...], "energy":
        [...], "outcome": ["converged" | "max-steps" | "stalled", ...]}."""
        body = {"queries": _rows(queries)}
        if mask is not None:
            m = mask.tolist() if _is_array(mask) else mask
            body["mask"] = [[bool(v) for v in r] for r in m] if m and isinstance(m[0], (list, tuple)) else [bool(v) for v in m]
        for key, v in (("step", step), ("max_steps", max_steps), ("tol", tol)):
            if v is not None:
                body[key] = v
        if box is not None:
            body["box"] = [float(box[0]), float(box[1])]
        out = self._request("POST", self._path(name, "/recall"), body)[1]
        out["x"] = self._array(out["x"])
        out["energy"] = self._array(out["energy"])
        return out

    def complete(self, name, rows, fill=None, step=None, max_steps=None, tol=None, box=None, npy=None):
        """Complete rows with missing entries by a descent of the energy of
        the memory name: rows (lists of D values, or one row) with None (or
        NaN) for a missing entry, or a numpy array with NaN. The visible
        entries are clamped and come back as sent; the missing ones start
        at fill (D numbers; 0 if None: a start near the answer, such as the
        columns' means, completes better) and descend with step (0.1),
        max_steps (300), tol (1e-6) and box (lo, hi), a recall's options. A row
        with nothing visible descends from the fill. Return {"x": the
        completed rows, "steps": [...], "energy": [...], "outcome":
        ["converged" | "max-steps" | "stalled", ...]} (numpy arrays for x
        and energy if numpy is in use). A numpy array is sent as a .npy body
        when no option is given (the .npy body takes the defaults), else as
        JSON with null for NaN; npy=True/False forces either. +-Inf raises
        ValueError naming its row and column. (Only here does null mean
        missing: add, energy and recall refuse it.)"""
        opts = {}
        if fill is not None:
            opts["fill"] = [float(v) for v in (fill.tolist() if _is_array(fill) else fill)]
        for key, v in (("step", step), ("max_steps", max_steps), ("tol", tol)):
            if v is not None:
                opts[key] = v
        if box is not None:
            opts["box"] = [float(box[0]), float(box[1])]
        if npy is None:
            npy = _is_array(rows) and not opts
        if npy and opts:
            raise ValueError("a .npy body takes the default options: send JSON (npy=False) to give %s" % ", ".join(sorted(opts)))
        path = self._path(name, "/complete")
        if npy:
            out = self._request("POST", path, npy_bytes(rows), "application/x-npy")[1]
        else:
            body = {"rows": _missing_rows(rows)}
            body.update(opts)
            out = self._request("POST", path, body)[1]
        out["x"] = self._array(out["x"])
        out["energy"] = self._array(out["energy"])
        return out

    def snapshot(self, name):
        """Make the server write a snapshot of the memory name now:
        {"file": its path on the server, "count": n}."""
        return self._request("POST", self._path(name, "/snapshot"))[1]

    def download(self, name, file=None):
        """The model file of the memory name, as of now: its bytes, or
        written to file (a path or a binary file object) if given."""
        data = self._request("GET", self._path(name, "/snapshot"), raw=True)[1]
        if file is None:
            return data
        if hasattr(file, "write"):
            file.write(data)
        else:
            with open(file, "wb") as f:
                f.write(data)
        return None

    def merge(self, name, model, idempotency_key=None):
        """Add a model file of the same configuration (bytes, a binary file
        object or a path) to the memory name: {"merged": n, "count": k}.
        idempotency_key: as add's."""
        key = self._key(idempotency_key)
        if hasattr(model, "read"):
            model = model.read()
        elif not isinstance(model, (bytes, bytearray)):
            with open(model, "rb") as f:
                model = f.read()
        return self._request("PUT", self._path(name, "/merge"), bytes(model), "application/octet-stream", key=key)[1]

    def metrics(self):
        """The server's Prometheus metrics, as text."""
        return self._request("GET", "/metrics", raw=True)[1].decode("utf-8")


def _error_of(e):
    """The DrdamError of an HTTPError: from the JSON error body, or from the
    status and the body's first line."""
    try:
        body = e.read()
    except Exception:  # noqa: BLE001 - a broken body still has a status
        body = b""
    try:
        d = json.loads(body.decode("utf-8"))["error"]
        return DrdamError(int(d.get("status") or e.code), d.get("field") or None, d["message"])
    except (ValueError, KeyError, TypeError, AttributeError):
        line = body.decode("utf-8", "replace").strip().split("\n")[0][:200]
        return DrdamError(e.code, None, "not a drdam error body: " + (line or str(e.reason)))
