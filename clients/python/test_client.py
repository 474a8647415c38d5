"""Tests of drdam_client against a live drdam server, and of its retries
against a fake one.

    DRDAM_URL=http://127.0.0.1:7077 [DRDAM_TOKEN=...] python3 test_client.py
    python3 test_client.py TestRetries  # the fake server's alone

The server is taken from DRDAM_URL (required: the tests fail without it),
and its token from DRDAM_TOKEN (if set, requests without it must be
refused with 401). Memories are made under names unique to the run and
deleted after. The tests run with lists and, if numpy is importable, once
more with numpy arrays. TestRetries needs no server: it starts a scripted
one on loopback. Go's client/python_test.go runs this file against a
server it starts.
"""

import email.utils
import http.server
import io
import json
import math
import os
import re
import socket
import sys
import threading
import time
import unittest
import urllib.error

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from drdam_client import Client, DrdamError, npy_bytes, _np, _retry_after  # noqa: E402

URL = os.environ.get("DRDAM_URL", "")
TOKEN = os.environ.get("DRDAM_TOKEN") or None
D = 8
CONFIG = {"d": D, "beta": 30, "y": 4000, "projection": "structured", "seed": 7}


def patterns(k, seed):
    """k patterns of D values in [0, 1/sqrt(D)), as lists."""
    return [[((i * D + j) * 7919 + seed * 104729) % 1000 / 1000 / math.sqrt(D) for j in range(D)] for i in range(k)]


def tolist(x):
    return x.tolist() if hasattr(x, "tolist") else x


class Base:
    """The tests, for lists (numpy=False) or numpy arrays (numpy=True)."""

    numpy = False

    def setUp(self):
        if not URL:
            self.fail("set DRDAM_URL to a drdam server's URL")
        self.c = Client(URL, token=TOKEN, timeout=30, numpy=self.numpy)
        self.name = "pytest-%d-%s-%s" % (os.getpid(), "np" if self.numpy else "list", self._testMethodName[5:])
        self.names = [self.name]

    def tearDown(self):
        for name in self.names:
            try:
                self.c.delete(name)
            except DrdamError:
                pass

    def data(self, rows):
        return _np.array(rows) if self.numpy else rows

    def test_health(self):
        self.assertEqual(self.c.health()["status"], "ok")

    def test_create_add_energy(self):
        info, created = self.c.create(self.name, CONFIG)
        self.assertTrue(created)
        self.assertEqual(info["name"], self.name)
        self.assertEqual(info["config"]["y"], 4000)
        self.assertEqual(info["count"], 0)
        _, created = self.c.create(self.name, **CONFIG)
        self.assertFalse(created, "created again with the same configuration")
        self.assertIn(self.name, [m["name"] for m in self.c.list()])

        x = patterns(30, 1)
        self.assertEqual(self.c.add(self.name, self.data(x[:20])), {"added": 20, "count": 20})
        self.assertEqual(self.c.add(self.name, x[20:], npy=True), {"added": 10, "count": 30})
        self.assertEqual(self.c.get(self.name)["count"], 30)

        # The same batches by JSON alone: the same energies, to the bit
        # (the same batches: T is summed batch by batch, and other batches
        # round otherwise in the last bit).
        other = self.name + "-json"
        self.names.append(other)
        self.c.create(other, CONFIG)
        self.c.add(other, x[:20], npy=False)
        self.c.add(other, x[20:], npy=False)
        q = patterns(4, 9)
        a = self.c.energy(self.name, self.data(q), grad=True)
        b = self.c.energy(other, q, grad=True)
        if self.numpy:
            self.assertIsInstance(a["energy"], _np.ndarray)
            self.assertEqual(a["grad"].shape, (4, D))
        else:
            self.assertIsInstance(a["energy"], list)
        self.assertEqual(tolist(a["energy"]), tolist(b["energy"]))
        self.assertEqual(tolist(a["grad"]), tolist(b["grad"]))
        self.assertNotIn("grad", self.c.energy(self.name, q))

        # The gradient is the energy's: central differences agree.
        h = 1e-5
        e0, g0 = tolist(a["energy"])[0], tolist(a["grad"])[0]
        for j in range(D):
            up, down = list(q[0]), list(q[0])
            up[j] += h
            down[j] -= h
            e = tolist(self.c.energy(self.name, [up, down])["energy"])
            fd = (e[0] - e[1]) / (2 * h)
            self.assertAlmostEqual(fd, g0[j], delta=1e-4 * (1 + abs(g0[j])) + 1e-6 * abs(e0))

        self.assertEqual(self.c.remove(self.name, x[:5]), {"removed": 5, "count": 25})
        self.assertEqual(self.c.remove(self.name, self.data(x[5:10]), npy=True), {"removed": 5, "count": 20})

    def test_add_batches(self):
        # 10,000 rows, more than the server's max_batch (4096 by default):
        # sent in batches of at most that many, with progress after each.
        self.c.create(self.name, CONFIG)
        lim = self.c.limits()
        self.assertGreaterEqual(lim["max_body"], 1 << 20)
        per = lim["max_batch"]
        n = 10000
        rows = self.data(patterns(n, 3))
        calls = []
        out = self.c.add_batches(self.name, rows, progress=lambda done, total: calls.append((done, total)))
        self.assertEqual(out, {"added": n, "count": n})
        want = [(min(n, hi), n) for hi in range(per, n + per, per)]
        self.assertEqual(calls, want)
        self.assertEqual(self.c.get(self.name)["count"], n)

    def test_recall(self):
        self.c.create(self.name, CONFIG)
        x = patterns(10, 2)
        self.c.add(self.name, x)
        q = list(x[3])
        for j in range(D // 2, D):
            q[j] = 0.0
        mask = [j < D // 2 for j in range(D)]
        r = self.c.recall(self.name, self.data([q]), mask=mask, max_steps=500, tol=1e-9, box=(0, 1))
        self.assertEqual(len(r["x"]), 1)
        self.assertIn(r["outcome"][0], ("converged", "max-steps", "stalled"))
        self.assertGreater(r["steps"][0], 0)
        xr = tolist(r["x"])[0]
        if self.numpy:
            self.assertIsInstance(r["x"], _np.ndarray)
        else:
            self.assertTrue(all(isinstance(v, float) for v in xr), "not floats: %r" % xr)
        self.assertEqual(xr[: D // 2], q[: D // 2], "the clamped half moved")
        self.assertTrue(all(0 <= v <= 1 for v in xr), "outside the box")
        # The final energy is the energy of the final state.
        e = tolist(self.c.energy(self.name, [xr])["energy"])[0]
        self.assertAlmostEqual(tolist(r["energy"])[0], e, delta=1e-9 * abs(e))
        # Descent lowers the energy.
        self.assertLessEqual(e, tolist(self.c.energy(self.name, [q])["energy"])[0])
        # A mask per query, and no mask.
        r2 = self.c.recall(self.name, [q, q], mask=[mask, mask], max_steps=20)
        self.assertEqual(r2["steps"], [20, 20])
        self.assertEqual(len(self.c.recall(self.name, q, max_steps=3)["steps"]), 1)

    def test_complete(self):
        """Rows with None (lists) or NaN (numpy) come back with their
        visible entries as sent and the missing ones completed (within the
        patterns' box); the same rows as lists, as a numpy array in JSON
        and as a .npy body give the same answer, to the bit; a row with
        nothing visible descends from the fill; bad rows raise."""
        self.c.create(self.name, d=D, rep="mrdam", beta=200)
        x = patterns(6, 5)
        self.c.add(self.name, x)
        nan = float("nan")
        rows = [list(r) for r in x[:3]]
        for i, r in enumerate(rows):
            for j in range(D):
                if (i + j) % 2 == 0:
                    r[j] = None
        rows[2] = [None] * D  # nothing visible
        fill = [0.5 / math.sqrt(D)] * D
        r = self.c.complete(self.name, rows, fill=fill, max_steps=200, tol=1e-12)
        self.assertEqual(len(r["steps"]), 3)
        self.assertTrue(all(o in ("converged", "max-steps", "stalled") for o in r["outcome"]), r["outcome"])
        xr = tolist(r["x"])
        if self.numpy:
            self.assertIsInstance(r["x"], _np.ndarray)
        for i, row in enumerate(rows):
            for j, v in enumerate(row):
                if v is not None:
                    self.assertEqual(xr[i][j], v, "row %d, column %d: the visible entry moved" % (i + 1, j + 1))
                else:
                    self.assertTrue(-0.5 < xr[i][j] < 1, "row %d, column %d: %r" % (i + 1, j + 1, xr[i][j]))
        # The same rows with NaN, and as a numpy array (JSON, then .npy
        # with the default options): the same answers.
        with_nan = [[nan if v is None else v for v in row] for row in rows]
        same = self.c.complete(self.name, self.data(with_nan), fill=fill, max_steps=200, tol=1e-12)
        self.assertEqual(tolist(same["x"]), xr)
        self.assertEqual(tolist(same["energy"]), tolist(r["energy"]))
        default = self.c.complete(self.name, rows, npy=False)
        self.assertEqual(tolist(self.c.complete(self.name, self.data(with_nan), npy=True)["x"]), tolist(default["x"]))
        # One row, not nested.
        self.assertEqual(len(self.c.complete(self.name, rows[0], max_steps=3)["steps"]), 1)
        # Errors: a short row, a string, a null in the fill (the server's);
        # Inf and a .npy with options (the client's).
        for bad, field in (([[0.1, None]], "rows"), ([[0.1, "x"] + [None] * (D - 2)], "rows")):
            with self.assertRaises(DrdamError) as cm:
                self.c._request("POST", self.c._path(self.name, "/complete"), {"rows": bad})
            self.assertEqual((cm.exception.status, cm.exception.field), (400, field))
        with self.assertRaises(DrdamError) as cm:
            self.c._request("POST", self.c._path(self.name, "/complete"), {"rows": rows, "fill": [None] * D})
        self.assertEqual((cm.exception.status, cm.exception.field), (400, "fill"))
        with self.assertRaises(DrdamError) as cm:
            self.c.complete(self.name, rows, max_steps=10 ** 9)
        self.assertEqual((cm.exception.status, cm.exception.field), (422, "max_steps"))
        with self.assertRaises(ValueError) as cm:
            self.c.complete(self.name, [[float("inf")] + [None] * (D - 1)])
        self.assertIn("row 1, column 1", str(cm.exception))
        with self.assertRaises(ValueError):
            self.c.complete(self.name, rows, npy=True, max_steps=3)

    def test_snapshot_download_merge(self):
        self.c.create(self.name, CONFIG)
        self.c.add(self.name, patterns(12, 3))
        snap = self.c.snapshot(self.name)
        self.assertEqual(snap["count"], 12)
        self.assertTrue(snap["file"])
        model = self.c.download(self.name)
        self.assertIsInstance(model, bytes)
        self.assertGreater(len(model), 8 * 4000)
        buf = io.BytesIO()
        self.c.download(self.name, buf)
        self.assertEqual(buf.getvalue(), model)
        self.assertEqual(self.c.merge(self.name, model), {"merged": 12, "count": 24})
        self.assertEqual(self.c.merge(self.name, io.BytesIO(model)), {"merged": 12, "count": 36})
        self.assertIn('drdam_memory_patterns{memory="%s"} 36' % self.name, self.c.metrics())

    def test_errors(self):
        with self.assertRaises(DrdamError) as cm:
            self.c.get(self.name + "-absent")
        self.assertEqual((cm.exception.status, cm.exception.field), (404, "name"))
        self.assertIn("absent", str(cm.exception))

        self.c.create(self.name, CONFIG)
        with self.assertRaises(DrdamError) as cm:
            self.c.create(self.name, d=D, y=5000)
        self.assertEqual((cm.exception.status, cm.exception.field), (409, "name"))
        with self.assertRaises(DrdamError) as cm:
            self.c.energy(self.name, [[0.0] * D])
        self.assertEqual((cm.exception.status, cm.exception.field), (409, "name"), "energy of an empty memory")
        for npy in (False, True):
            with self.assertRaises(DrdamError) as cm:
                self.c.add(self.name, [[0.0] * (D + 1)], npy=npy)
            self.assertEqual((cm.exception.status, cm.exception.field), (400, "patterns"))
        self.c.add(self.name, patterns(2, 4))
        with self.assertRaises(DrdamError) as cm:
            self.c.remove(self.name, patterns(3, 4))
        self.assertEqual((cm.exception.status, cm.exception.field), (422, "patterns"))
        with self.assertRaises(DrdamError) as cm:
            self.c.recall(self.name, [[0.0] * D], step=-1)
        self.assertEqual((cm.exception.status, cm.exception.field), (422, "step"))
        with self.assertRaises(DrdamError) as cm:
            self.c.merge(self.name, b"not a model")
        self.assertEqual((cm.exception.status, cm.exception.field), (400, "body"))
        with self.assertRaises(ValueError):
            self.c.energy(self.name, [[float("nan")] * D])  # JSON has no NaN

        if TOKEN:
            anon = Client(URL)
            with self.assertRaises(DrdamError) as cm:
                anon.list()
            self.assertEqual((cm.exception.status, cm.exception.field), (401, "Authorization"))
            with self.assertRaises(DrdamError) as cm:
                Client(URL, token=TOKEN + "x").get(self.name)
            self.assertEqual(cm.exception.status, 401)
            self.assertEqual(anon.health()["status"], "ok")

        # Nothing listening: urllib's error, not a DrdamError, retried.
        with self.assertRaises(urllib.error.URLError) as cm:
            Client("http://127.0.0.1:9", timeout=5, retries=2, backoff=0.001).health()
        self.assertEqual(cm.exception.attempts, 3)

    def test_npy_bytes(self):
        b = npy_bytes([[1.0, 2.0], [3.0, 4.0]])
        self.assertTrue(b.startswith(b"\x93NUMPY\x01\x00"))
        self.assertEqual((10 + int.from_bytes(b[8:10], "little")) % 64, 0)
        self.assertEqual(len(b), 10 + int.from_bytes(b[8:10], "little") + 32)
        if _np is not None:
            self.assertEqual(b, npy_bytes(_np.array([[1.0, 2.0], [3.0, 4.0]])))
            self.assertEqual(_np.load(io.BytesIO(b)).tolist(), [[1.0, 2.0], [3.0, 4.0]])


class Flaky(http.server.ThreadingHTTPServer):
    """A fake drdam server on loopback that answers its first requests as
    script says, then 200 and ok as JSON (b"the file" for a download or the
    metrics). A step is a status (with a drdam JSON error body), "503:1"
    (a status with a Retry-After of that many seconds), "cut" (a 200 whose
    body stops after 9 of its 100 bytes, the connection closed) or "close"
    (the connection closed before any answer). Each request is kept in
    seen: (time.monotonic(), method, path, Idempotency-Key or None, body)."""

    def __init__(self, script, ok=None):
        self.script = list(script)
        self.ok = ok if ok is not None else {"status": "ok"}
        self.seen = []
        self.lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), _FlakyHandler)
        self.url = "http://127.0.0.1:%d" % self.server_address[1]
        threading.Thread(target=self.serve_forever, args=(0.01,), daemon=True).start()

    def stop(self):
        self.shutdown()
        self.server_close()


class _FlakyHandler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def _serve(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        srv = self.server
        with srv.lock:
            srv.seen.append((time.monotonic(), self.command, self.path, self.headers.get("Idempotency-Key"), body))
            n = len(srv.seen)
        step = srv.script[n - 1] if n <= len(srv.script) else "200"
        self.close_connection = True
        if step == "close":
            return
        if step == "cut":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "100")
            self.end_headers()
            self.wfile.write(b'{"added":')
            return
        status, _, after = step.partition(":")
        status = int(status)
        if status == 200:
            out = b"the file" if self.path == "/metrics" or self.path.endswith("/snapshot") and self.command == "GET" else json.dumps(srv.ok).encode()
        else:
            out = json.dumps({"error": {"status": status, "message": "scripted " + step}}).encode()
        self.send_response(status)
        if after:
            self.send_header("Retry-After", after)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    do_GET = do_POST = do_PUT = do_DELETE = _serve


HEX_KEY = re.compile(r"^[0-9a-f]{32}$")


class TestRetries(unittest.TestCase):
    """The retries and the idempotency keys, against Flaky (no numpy: the
    bodies are compared as bytes)."""

    def flaky(self, *script, ok=None):
        f = Flaky(script, ok)
        self.addCleanup(f.stop)
        return f

    def client(self, f, **kw):
        kw.setdefault("backoff", 0.001)
        return Client(f.url, timeout=10, numpy=False, **kw)

    def test_writes(self):
        """add (JSON and .npy), remove and merge, answered a connection
        closed, a 503, a 507 and an answer cut short, then 200: 5 attempts,
        all with the same key (32 hexadecimal digits) and the same whole
        body; the next call has another key."""
        rows = [[0.5, 0.25], [0.125, 1.0]]
        model = b"a model file " * 1000
        writes = [
            ("add", lambda c: c.add("m", rows), "/v1/memories/m/patterns", json.dumps({"patterns": rows}).encode()),
            ("add npy", lambda c: c.add("m", rows, npy=True), "/v1/memories/m/patterns", npy_bytes(rows)),
            ("remove", lambda c: c.remove("m", rows), "/v1/memories/m/patterns:remove", json.dumps({"patterns": rows}).encode()),
            ("merge", lambda c: c.merge("m", io.BytesIO(model)), "/v1/memories/m/merge", model),
        ]
        for what, call, path, body in writes:
            with self.subTest(what):
                f = self.flaky("close", "503", "507", "cut", ok={"added": 2, "count": 7})
                c = self.client(f)
                self.assertEqual(call(c), {"added": 2, "count": 7})
                self.assertEqual(len(f.seen), 5)
                key = f.seen[0][3]
                self.assertRegex(key, HEX_KEY)
                for _, method, p, k, b in f.seen:
                    self.assertEqual((p, k), (path, key))
                    self.assertEqual(json.loads(b) if b.startswith(b"{") else b, json.loads(body) if body.startswith(b"{") else body)
                call(c)
                self.assertEqual(len(f.seen), 6)
                self.assertRegex(f.seen[5][3], HEX_KEY)
                self.assertNotEqual(f.seen[5][3], key, "the same key on two calls")

    def test_reads(self):
        """The reads and the other calls, answered 503, 502 and an answer
        cut short, then 200: 4 attempts, and no Idempotency-Key."""
        calls = [
            ("health", lambda c: c.health()),
            ("list", lambda c: c.list()),
            ("get", lambda c: c.get("m")),
            ("energy", lambda c: c.energy("m", [[1.0, 2.0]])),
            ("recall", lambda c: c.recall("m", [[1.0, 2.0]])),
            ("complete", lambda c: c.complete("m", [[1.0, None]])),
            ("create", lambda c: c.create("m", d=2)),
            ("delete", lambda c: c.delete("m")),
            ("snapshot", lambda c: c.snapshot("m")),
            ("download", lambda c: self.assertEqual(c.download("m"), b"the file")),
            ("metrics", lambda c: self.assertEqual(c.metrics(), "the file")),
        ]
        ok = {"status": "ok", "memories": [], "energy": [1.0], "x": [[1.0, 2.0]]}
        for what, call in calls:
            with self.subTest(what):
                f = self.flaky("503", "502", "cut", ok=ok)
                call(self.client(f))
                self.assertEqual(len(f.seen), 4)
                self.assertEqual([s[3] for s in f.seen], [None] * 4)

    def test_statuses(self):
        """408, 429, 500, 502, 503, 504 and 507 are retried (2 attempts);
        400, 401, 404, 409, 413 and 422 are not (1 attempt, their
        DrdamError)."""
        for status in (408, 429, 500, 502, 503, 504, 507, 400, 401, 404, 409, 413, 422):
            with self.subTest(status):
                f = self.flaky(str(status), ok={"added": 1, "count": 1})
                c = self.client(f)
                if status in (408, 429, 500, 502, 503, 504, 507):
                    self.assertEqual(c.add("m", [[1.0]]), {"added": 1, "count": 1})
                    self.assertEqual(len(f.seen), 2)
                else:
                    with self.assertRaises(DrdamError) as cm:
                        c.add("m", [[1.0]])
                    self.assertEqual((cm.exception.status, cm.exception.attempts, len(f.seen)), (status, 1, 1))
                    self.assertNotIn("attempts", str(cm.exception))

    def test_gives_up(self):
        """Always 503: 1 + retries attempts (4), the same key, and the last
        503 raised with attempts = 4; retries=0: one attempt. A server that
        is not there: URLError after 3 attempts."""
        f = self.flaky(*["503"] * 9)
        with self.assertRaises(DrdamError) as cm:
            self.client(f, retries=3).add("m", [[1.0]])
        self.assertEqual((cm.exception.status, cm.exception.attempts, len(f.seen)), (503, 4, 4))
        self.assertIn("the last of 4 attempts", str(cm.exception))
        self.assertEqual(len({s[3] for s in f.seen}), 1)
        g = self.flaky("503")
        with self.assertRaises(DrdamError) as cm:
            self.client(g, retries=0).get("m")
        self.assertEqual((cm.exception.attempts, len(g.seen)), (1, 1))
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()  # nothing listens there now
        with self.assertRaises(urllib.error.URLError) as cm:
            Client("http://127.0.0.1:%d" % port, retries=2, backoff=0.001).health()
        self.assertEqual(cm.exception.attempts, 3)

    def test_backoff(self):
        """With backoff=0.02, the waits between the arrivals of 5 attempts
        are within [10, 20], [20, 40], [40, 80] and [80, 160] ms (equal
        jitter). The lower bounds are firm (the client sleeps at least that
        long after the answer, which follows its request); the upper ones
        get 150 ms for a loaded machine; a wait that did not grow fails the
        lower bounds of the third and fourth."""
        f = self.flaky("503", "503", "503", "503")
        self.client(f, backoff=0.02).get("m")
        self.assertEqual(len(f.seen), 5)
        for i in range(1, 5):
            gap, lo = f.seen[i][0] - f.seen[i - 1][0], 0.01 * 2 ** (i - 1)
            self.assertGreaterEqual(gap, lo, "wait %d" % i)
            self.assertLessEqual(gap, 2 * lo + 0.15, "wait %d" % i)

    def test_retry_after(self):
        """A 503 with Retry-After: 1 makes the client wait, not for its 1
        ms backoff but for max_backoff, lowered to 0.3 s here (the default
        cap, 5 s, is checked by test_delay): at least 0.3 s, and at most
        0.7 (0.4 s for a loaded machine: less than the 1 s asked)."""
        f = self.flaky("503:1")
        c = self.client(f)
        c.max_backoff = 0.3
        c.get("m")
        self.assertEqual(len(f.seen), 2)
        gap = f.seen[1][0] - f.seen[0][0]
        self.assertGreaterEqual(gap, 0.3)
        self.assertLessEqual(gap, 0.7)

    def test_keys(self):
        """A key of the caller's goes with every attempt (even with
        idempotency_keys=False); idempotency_keys=False sends none
        otherwise; a bad key raises ValueError before anything is sent;
        """
        f = self.flaky("503", "cut", ok={"added": 1, "count": 1})
        c = self.client(f, idempotency_keys=False)
        c.add("m", [[1.0]], idempotency_key="batch-0042")
        self.assertEqual([s[3] for s in f.seen], ["batch-0042"] * 3)
        c.merge("m", b"model")
        self.assertIsNone(f.seen[3][3])
        for bad in ("", "a b", "cl\u00e9", "k" * 256):
            with self.assertRaises(ValueError):
                c.add("m", [[1.0]], idempotency_key=bad)
        self.assertEqual(len(f.seen), 4)
        c.remove("m", [[1.0]], idempotency_key="~" * 255)
        self.assertEqual(f.seen[4][3], "~" * 255)

    def test_delay(self):
        """The wait after attempt n is within [d/2, d], d = backoff *
        2**(n-1) at most max_backoff (5 s), and jittered (200 draws not
        all alike); a Retry-After is taken as it is, capped at 5 s."""
        c = Client("http://127.0.0.1:9", backoff=0.1)
        for n in range(1, 13):
            d = min(0.1 * 2 ** (n - 1), 5.0)
            waits = [c._delay(n, None) for _ in range(200)]
            self.assertTrue(all(d / 2 <= w <= d for w in waits), "attempt %d: %r" % (n, (min(waits), max(waits))))
            self.assertGreater(len(set(waits)), 100)
        self.assertEqual(c._delay(1, 2.0), 2.0)
        self.assertEqual(c._delay(1, 3600.0), 5.0)

    def test_retry_after_header(self):
        """Retry-After in seconds, or as an HTTP date (about 3 s ahead);
        none, a negative number or a bad value is None."""
        self.assertEqual(_retry_after({"Retry-After": "2"}), 2.0)
        date = email.utils.formatdate(time.time() + 3.5, usegmt=True)  # 2.5-3.5 s ahead
        self.assertTrue(2.0 <= _retry_after({"Retry-After": date}) <= 3.5, date)
        for v in ("", "-1", "soon"):
            self.assertIsNone(_retry_after({"Retry-After": v}), v)
        self.assertIsNone(_retry_after({}))


class TestLists(Base, unittest.TestCase):
    numpy = False


@unittest.skipIf(_np is None, "numpy is not installed: the numpy arrays' tests do not run")
class TestNumpy(Base, unittest.TestCase):
    numpy = True


if __name__ == "__main__":
    unittest.main(verbosity=2)
