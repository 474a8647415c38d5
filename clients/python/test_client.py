"""Tests of drdam_client against a live drdam server.

    DRDAM_URL=http://127.0.0.1:7077 [DRDAM_TOKEN=...] python3 test_client.py

The server is taken from DRDAM_URL (required: the tests fail without it),
and its token from DRDAM_TOKEN (if set, requests without it must be
refused with 401). Memories are made under names unique to the run and
deleted after. The tests run with lists and, if numpy is importable, once
more with numpy arrays. Go's client/python_test.go runs this file against
a server it starts.
"""

import io
import math
import os
import sys
import unittest
import urllib.error

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from drdam_client import Client, DrdamError, npy_bytes, _np  # noqa: E402

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


class TestLists(Base, unittest.TestCase):
    numpy = False


@unittest.skipIf(_np is None, "numpy is not installed: the numpy arrays' tests do not run")
class TestNumpy(Base, unittest.TestCase):
    numpy = True


if __name__ == "__main__":
    unittest.main(verbosity=2)
