// drdam serve's web page: the memories, and the completion of an occluded
// image by energy descent, streamed (POST …/recall:stream, server-sent
// events read with fetch, since EventSource cannot POST). No library, no
// build step.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const st = {
    mems: [], galleries: {}, cur: null, orig: null, occl: null, gallery: [],
    runs: [], paused: false, waiters: [], pauseAt: null, series: { a: [], b: [] }, maxSteps: 300,
  };

  // ---- the API ----
  const token = () => sessionStorage.getItem("drdam-token") || "";
  function headers(json) {
    const h = {};
    if (json) h["Content-Type"] = "application/json";
    if (token()) h["Authorization"] = "Bearer " + token();
    return h;
  }
  async function api(path, opt = {}) {
    const r = await fetch(path, { ...opt, headers: headers(!!opt.body) });
    const j = await r.json().catch(() => null);
    if (!r.ok) throw new Error(j && j.error ? `${j.error.status}${j.error.field ? " (" + j.error.field + ")" : ""}: ${j.error.message}` : `HTTP ${r.status}`);
    return j;
  }
  const memPath = (name) => "/v1/memories/" + encodeURIComponent(name);

  function status(msg, err) {
    const s = $("status");
    s.textContent = msg || "";
    s.classList.toggle("error", !!err);
  }

  // ---- images: a pattern is H×W×C, a level v is v/255/√D ----
  // A memory of D = H·H or H·H·3 with H ≥ 8 is drawn as images; a smaller
  // square (D = 4, 16: vectors, records) is not an image.
  function shape(d) {
    for (const c of [1, 3]) {
      if (d % c) continue;
      const h = Math.round(Math.sqrt(d / c));
      if (h >= 8 && h * h * c === d) return { h, c };
    }
    return null;
  }
  const level = (v, d) => Math.min(255, Math.max(0, Math.round(v * 255 * Math.sqrt(d))));

  // draw paints pattern x on a canvas; occluded pixels (occl[p]) as a
  // checkerboard, for the query.
  function draw(canvas, x, occl) {
    const { h, c, d } = st.cur;
    const ctx = canvas.getContext("2d");
    if (!x) { ctx.clearRect(0, 0, canvas.width, canvas.height); return; }
    const img = new ImageData(h, h);
    for (let p = 0; p < h * h; p++) {
      let r, g, b;
      if (occl && occl[p]) {
        r = g = b = ((p % h >> 1) + ((p / h | 0) >> 1)) % 2 ? 71 : 100;
      } else if (c === 1) {
        r = g = b = level(x[p], d);
      } else {
        r = level(x[3 * p], d); g = level(x[3 * p + 1], d); b = level(x[3 * p + 2], d);
      }
      img.data.set([r, g, b, 255], 4 * p);
    }
    const off = document.createElement("canvas");
    off.width = off.height = h;
    off.getContext("2d").putImageData(img, 0, 0);
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(off, 0, 0, canvas.width, canvas.height);
    if (occl && st.box) {
      const k = canvas.width / h, [x0, y0, x1, y1] = st.box;
      ctx.strokeStyle = "#f59e0b"; ctx.lineWidth = 2;
      ctx.strokeRect(x0 * k + 1, y0 * k + 1, (x1 - x0) * k - 2, (y1 - y0) * k - 2);
    }
  }

  // rmse is the root mean square error of x against the original on the
  // occluded pixels (every channel), in levels 0–255.
  function rmse(x) {
    const { c, d } = st.cur;
    let s = 0, n = 0;
    st.occl.forEach((o, p) => {
      if (!o) return;
      for (let k = 0; k < c; k++) {
        const e = level(x[p * c + k], d) - level(st.orig[p * c + k], d);
        s += e * e; n++;
      }
    });
    return n ? Math.sqrt(s / n) : 0;
  }

  // query is the original with its occluded pixels at 0, and the clamp
  // mask (1: visible, clamped).
  function query() {
    const { c, d } = st.cur;
    const x = Array.from(st.orig), mask = new Array(d).fill(1);
    st.occl.forEach((o, p) => {
      if (!o) return;
      for (let k = 0; k < c; k++) { x[p * c + k] = 0; mask[p * c + k] = 0; }
    });
    return { x, mask };
  }

  function redrawInputs() {
    if (!st.cur) return;
    draw($("c-orig"), st.orig);
    draw($("c-query"), st.orig && query().x, st.occl);
  }

  // ---- occlusion: the bottom rows, or a box dragged on the query ----
  function bottomRows(n) {
    const h = st.cur.h;
    st.box = null;
    st.occl = new Uint8Array(h * h);
    for (let p = (h - n) * h; p < h * h; p++) st.occl[p] = 1;
    $("rows-out").textContent = n;
    redrawInputs();
  }
  function pixelAt(ev) {
    const cv = $("c-query"), r = cv.getBoundingClientRect(), h = st.cur.h;
    const f = (v, lo, size) => Math.min(h, Math.max(0, Math.round((v - lo) / size * h)));
    return [f(ev.clientX, r.left, r.width), f(ev.clientY, r.top, r.height)];
  }
  function setBox(a, b) {
    const h = st.cur.h;
    const x0 = Math.min(a[0], b[0]), x1 = Math.max(a[0], b[0]), y0 = Math.min(a[1], b[1]), y1 = Math.max(a[1], b[1]);
    if (x1 - x0 < 1 || y1 - y0 < 1) return;
    st.box = [x0, y0, x1, y1];
    st.occl = new Uint8Array(h * h);
    for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) st.occl[y * h + x] = 1;
    $("rows-out").textContent = "box";
    redrawInputs();
  }
  let dragFrom = null;
  $("c-query").addEventListener("pointerdown", (ev) => {
    if (!st.cur) return;
    dragFrom = pixelAt(ev);
    $("c-query").setPointerCapture(ev.pointerId);
  });
  $("c-query").addEventListener("pointermove", (ev) => { if (dragFrom) setBox(dragFrom, pixelAt(ev)); });
  $("c-query").addEventListener("pointerup", (ev) => { if (dragFrom) setBox(dragFrom, pixelAt(ev)); dragFrom = null; });
  $("rows").addEventListener("input", () => st.cur && bottomRows(+$("rows").value));

  // ---- the memories ----
  const fmtBytes = (n) => n < 1024 ? n + " B" : n < 1 << 20 ? (n / 1024).toFixed(1) + " KiB" : n < 1 << 30 ? (n / (1 << 20)).toFixed(1) + " MiB" : (n / (1 << 30)).toFixed(2) + " GiB";
  function cfgLine(c) {
    let s = `β = ${c.beta} · ${c.similarity || "l2"}`;
    if (c.rep !== "mrdam") {
      s += ` · ${c.basis} · ${c.projection} · Y = ${c.y} · seed ${c.seed || 0}`;
      if (c.precision && c.precision !== "float64") s += " · " + c.precision;
    }
    return s;
  }
  function td(text, cls) {
    const e = document.createElement("td");
    e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }
  function renderTable() {
    const tb = $("memories").tBodies[0];
    tb.replaceChildren(...st.mems.map((m) => {
      const tr = document.createElement("tr");
      tr.dataset.name = m.name;
      const rep = document.createElement("span");
      rep.className = "rep " + m.config.rep;
      rep.textContent = m.config.rep === "mrdam" ? "MrDAM" : "DrDAM";
      const kind = td(""); kind.append(rep);
      const s = shape(m.config.d), g = st.galleries[m.name] || 0;
      tr.append(td(m.name, "name"), kind, td(m.config.d, "num"),
        td(s ? `${s.h}×${s.h} ${s.c === 1 ? "gray" : "RGB"}${g ? ` · ${g} kept` : ""}` : "—", s ? "" : "muted"),
        td(m.count, "num"), td(fmtBytes(m.bytes), "num"), td(cfgLine(m.config), "cfg"));
      return tr;
    }));
    $("list-note").textContent = st.mems.length ? "" : "No memory yet: create one with PUT /v1/memories/{name}.";
  }
  function option(value, text) {
    const o = document.createElement("option");
    o.value = value; o.textContent = text;
    return o;
  }
  async function refresh() {
    try {
      st.mems = (await api("/v1/memories")).memories;
    } catch (e) {
      $("list-note").textContent = token() ? "The token was refused: " + e.message : "This server needs a token: paste it above to see its memories.";
      $("memories").tBodies[0].replaceChildren();
      return;
    }
    await Promise.all(st.mems.filter((m) => shape(m.config.d)).map(async (m) => {
      st.galleries[m.name] = (await api(memPath(m.name) + "/gallery").catch(() => ({ count: 0 }))).count;
    }));
    renderTable();
    const imgs = st.mems.filter((m) => shape(m.config.d));
    // Open on a memory that holds images (a gallery), a DrDAM first.
    const held = (m) => (st.galleries[m.name] || 0) > 0;
    imgs.sort((a, b) => held(b) - held(a) || (a.config.rep === "mrdam") - (b.config.rep === "mrdam"));
    const was = $("mem").value;
    $("mem").replaceChildren(...imgs.map((m) => option(m.name, `${m.name} (${m.config.rep === "mrdam" ? "MrDAM" : "DrDAM"}, ${m.count})`)));
    if (!imgs.length) {
      $("mem").append(option("", "no image memory"));
      status("No memory holds images: D must be H·H (gray) or H·H·3 (RGB) with H ≥ 8, e.g. 784 or 3072.");
      return;
    }
    if (imgs.some((m) => m.name === was)) $("mem").value = was;
    await selectMemory();
  }

  async function selectMemory() {
    const m = st.mems.find((m) => m.name === $("mem").value);
    if (!m) return;
    const s = shape(m.config.d);
    st.cur = { name: m.name, d: m.config.d, h: s.h, c: s.c };
    const others = st.mems.filter((o) => o.name !== m.name && o.config.d === m.config.d);
    others.sort((a, b) => (b.config.rep === "mrdam") - (a.config.rep === "mrdam"));
    $("cmp").replaceChildren(option("", "none"), ...others.map((o) => option(o.name, `${o.name} (${o.config.rep === "mrdam" ? "MrDAM" : "DrDAM"})`)));
    if (others.length && others[0].config.rep === "mrdam" && m.config.rep === "drdam") $("cmp").value = others[0].name;
    $("rows").max = s.h;
    $("rows").value = Math.round(s.h / 2);
    st.gallery = [];
    const n = st.galleries[m.name] || 0;
    st.gallery = await Promise.all(Array.from({ length: n }, (_, i) => api(`${memPath(m.name)}/gallery?i=${i}`).then((j) => j.pattern)));
    renderThumbs();
    $("src").replaceChildren(...st.gallery.map((_, i) => option(i, `stored #${i}`)));
    if (!n) $("src").append(option("", "none kept: upload one"));
    st.orig = st.gallery[0] || null;
    clearOutputs();
    bottomRows(+$("rows").value);
    if (!n) status(`${m.name} keeps no image: upload one.`);
    else status("");
  }

  function renderThumbs() {
    const { h } = st.cur;
    $("thumbs").replaceChildren(...st.gallery.map((x, i) => {
      const cv = document.createElement("canvas");
      cv.width = cv.height = h;
      cv.title = "stored #" + i;
      cv.dataset.i = i;
      draw(cv, x);
      cv.addEventListener("click", () => pick(i));
      return cv;
    }));
    markThumb(0);
  }
  function markThumb(i) {
    for (const t of $("thumbs").children) t.classList.toggle("sel", +t.dataset.i === i);
  }
  function pick(i) {
    st.orig = st.gallery[i];
    $("src").value = i;
    markThumb(i);
    clearOutputs();
    redrawInputs();
  }
  $("src").addEventListener("change", () => { if ($("src").value !== "upload" && $("src").value !== "") pick(+$("src").value); });
  $("mem").addEventListener("change", selectMemory);
  $("cmp").addEventListener("change", clearOutputs);

  // upload: the image's centred square, scaled to H×H, as a pattern.
  $("upload").addEventListener("change", async () => {
    const f = $("upload").files[0];
    if (!f || !st.cur) return;
    try {
      const bmp = await createImageBitmap(f);
      const { h, c, d } = st.cur, s = Math.min(bmp.width, bmp.height);
      // The square first, unscaled, so that the scaling filter sees no
      // pixel outside it; then scaled to H×H.
      const sq = document.createElement("canvas");
      sq.width = sq.height = s;
      sq.getContext("2d").drawImage(bmp, Math.floor((bmp.width - s) / 2), Math.floor((bmp.height - s) / 2), s, s, 0, 0, s, s);
      const cv = document.createElement("canvas");
      cv.width = cv.height = h;
      const ctx = cv.getContext("2d");
      ctx.imageSmoothingQuality = "high";
      ctx.drawImage(sq, 0, 0, h, h);
      const px = ctx.getImageData(0, 0, h, h).data, x = new Array(d), k = 1 / 255 / Math.sqrt(d);
      for (let p = 0; p < h * h; p++) {
        if (c === 1) x[p] = Math.round(0.299 * px[4 * p] + 0.587 * px[4 * p + 1] + 0.114 * px[4 * p + 2]) * k;
        else for (let j = 0; j < 3; j++) x[3 * p + j] = px[4 * p + j] * k;
      }
      st.orig = x;
      if (![...$("src").options].some((o) => o.value === "upload")) $("src").append(option("upload", "uploaded: " + f.name));
      $("src").value = "upload";
      markThumb(-1);
      clearOutputs();
      redrawInputs();
    } catch (e) {
      status("Cannot read that image: " + e.message, true);
    }
  });

  // ---- the energy plot ----
  const SVG = "http://www.w3.org/2000/svg";
  function svg(tag, attrs, text) {
    const e = document.createElementNS(SVG, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  // niceTicks returns about n ticks over [lo, hi] at the multiples of a
  // round step (1, 2 or 5 times a power of ten) that fall inside.
  function niceTicks(lo, hi, n) {
    const raw = (hi - lo) / n, p = 10 ** Math.floor(Math.log10(raw)), f = raw / p;
    const step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
    const ticks = [];
    for (let i = Math.ceil(lo / step - 1e-9); i * step <= hi + step * 1e-9; i++) ticks.push(i * step);
    return { step, ticks };
  }
  // fmtE writes an energy tick with the digits its step needs.
  function fmtE(e, step) {
    const digits = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
    if (Math.abs(e) < 0.5 * step) return "0";
    return digits > 6 ? e.toExponential(1) : e.toFixed(digits);
  }
  let plotQueued = false;
  function plot() {
    if (plotQueued) return;
    plotQueued = true;
    requestAnimationFrame(() => {
      plotQueued = false;
      const W = 720, H = 220, L = 64, R = 12, T = 12, B = 30, el = $("plot");
      const all = [...st.series.a, ...st.series.b];
      const kids = [];
      if (all.length) {
        let lo = Math.min(...all.map((p) => p[1])), hi = Math.max(...all.map((p) => p[1]));
        if (hi - lo < 1e-12) { hi += 0.5; lo -= 0.5; }
        const sx = (t) => L + t / Math.max(1, st.maxSteps) * (W - L - R), sy = (e) => T + (hi - e) / (hi - lo) * (H - T - B);
        const et = niceTicks(lo, hi, 4);
        for (const e of et.ticks) {
          const y = sy(e);
          kids.push(svg("line", { x1: L, x2: W - R, y1: y, y2: y, class: "grid" }), svg("text", { x: L - 6, y: y + 4, "text-anchor": "end", class: "etick" }, fmtE(e, et.step)));
        }
        for (const t of niceTicks(0, Math.max(1, st.maxSteps), 5).ticks) {
          kids.push(svg("text", { x: sx(t), y: H - 10, "text-anchor": "middle", class: "ttick" }, Math.round(t)));
        }
        let ly = T + 14;
        for (const k of ["a", "b"]) {
          if (!st.series[k].length) continue;
          kids.push(svg("line", { x1: W - R - 150, x2: W - R - 130, y1: ly - 4, y2: ly - 4, class: "l" + k }),
            svg("text", { x: W - R - 124, y: ly, class: "legend" }, $(k + "-name").textContent));
          ly += 16;
        }
        for (const k of ["a", "b"]) {
          if (st.series[k].length) kids.push(svg("polyline", { class: "l" + k, points: st.series[k].map((p) => sx(p[0]).toFixed(1) + "," + sy(p[1]).toFixed(1)).join(" ") }));
        }
      }
      if (!all.length) kids.push(svg("text", { x: (L + W) / 2, y: H / 2, "text-anchor": "middle", class: "legend" }, "Complete: the energy of each step appears here"));
      kids.push(svg("line", { x1: L, x2: L, y1: T, y2: H - B, class: "axis" }), svg("line", { x1: L, x2: W - R, y1: H - B, y2: H - B, class: "axis" }));
      el.replaceChildren(...kids);
    });
  }

  // ---- the descent, streamed ----
  function clearOutputs() {
    for (const r of st.runs) r.ctl.abort();
    st.runs = [];
    setPaused(false);
    st.series = { a: [], b: [] };
    for (const k of ["a", "b"]) {
      const s = $(k + "-stat");
      s.textContent = "\u00a0";
      for (const f of ["step", "rmse", "energy0", "energy", "done"]) s.dataset[f] = "";
      if (st.cur) draw($("c-" + k), null);
    }
    $("a-name").textContent = st.cur ? st.cur.name : "—";
    const b = $("cmp").value;
    $("fig-b").hidden = !b;
    $("b-name").textContent = b || "—";
    $("go").disabled = false;
    $("pause").disabled = true;
    plot();
  }
  function setPaused(p) {
    st.paused = p;
    $("pause").textContent = p ? "Resume" : "Pause";
    if (!p) { st.pauseAt = null; st.waiters.splice(0).forEach((f) => f()); }
  }
  $("pause").addEventListener("click", () => setPaused(!st.paused));

  function show(k, ev, done) {
    const s = $(k + "-stat");
    if (ev.x) {
      draw($("c-" + k), ev.x);
      s.dataset.rmse = rmse(ev.x).toFixed(2);
    }
    if (s.dataset.energy0 === "") s.dataset.energy0 = ev.energy;
    s.dataset.step = ev.step;
    s.dataset.energy = ev.energy;
    if (done) s.dataset.done = ev.outcome;
    s.textContent = `step ${ev.step}${done ? " · " + ev.outcome : ""}\nE = ${(+ev.energy).toPrecision(5)}\nRMSE ${s.dataset.rmse || "–"} (occluded, 0–255)`;
  }

  // stream runs one descent on memory name into panel k.
  async function stream(k, name, body, ctl) {
    const r = await fetch(memPath(name) + "/recall:stream", { method: "POST", headers: headers(true), body: JSON.stringify(body), signal: ctl.signal });
    if (!r.ok) {
      const j = await r.json().catch(() => null);
      throw new Error(`${name}: ` + (j && j.error ? j.error.message : "HTTP " + r.status));
    }
    const rd = r.body.getReader(), dec = new TextDecoder();
    let buf = "";
    for (;;) {
      const { value, done } = await rd.read();
      if (done) break;
      buf += dec.decode(value, { stream: true });
      let i;
      while ((i = buf.indexOf("\n\n")) >= 0) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        let type = "message", data = "";
        for (const line of block.split("\n")) {
          if (line.startsWith("event:")) type = line.slice(6).trim();
          else if (line.startsWith("data:")) data += line.slice(5).trim();
        }
        const ev = JSON.parse(data);
        if (type === "step") {
          st.series[k].push([ev.step, ev.energy]);
          show(k, ev, false);
          plot();
          // Paused by hand, every stream holds; at a step asked for
          // (pauseAt), each holds once it reaches it.
          if (st.pauseAt !== null && ev.step >= st.pauseAt && !st.paused) setPaused(true);
          while (st.paused && !ctl.signal.aborted && (st.pauseAt === null || ev.step >= st.pauseAt)) await new Promise((f) => st.waiters.push(f));
        } else if (type === "done") {
          show(k, { step: ev.steps, energy: ev.energy, x: ev.x, outcome: ev.outcome }, true);
        } else if (type === "error") {
          throw new Error(`${name}: ${ev.error.message}`);
        }
      }
    }
  }

  $("go").addEventListener("click", async () => {
    if (!st.cur || !st.orig) { status("Pick a stored image or upload one first.", true); return; }
    if (!st.occl.some((o) => o)) { status("Occlude something first: the bottom rows, or drag a box on the query.", true); return; }
    const pauseAt = st.pauseAt;
    clearOutputs();
    st.pauseAt = pauseAt;
    const { x, mask } = query();
    st.maxSteps = Math.max(1, +$("maxsteps").value || 300);
    const body = { queries: [x], mask, step: +$("step").value || 0.1, max_steps: st.maxSteps, every: Math.max(1, +$("every").value || 1), box: [0, 1 / Math.sqrt(st.cur.d)] };
    const jobs = [["a", st.cur.name]];
    if ($("cmp").value) jobs.push(["b", $("cmp").value]);
    $("go").disabled = true;
    $("pause").disabled = false;
    status("Descending…");
    const t0 = performance.now();
    st.runs = jobs.map(([k, name]) => ({ k, name, ctl: new AbortController() }));
    const runs = st.runs;
    try {
      await Promise.all(runs.map((r) => stream(r.k, r.name, body, r.ctl)));
      if (st.runs === runs) status(`Done in ${((performance.now() - t0) / 1000).toFixed(2)} s.`);
    } catch (e) {
      if (e.name !== "AbortError") { status(e.message, true); for (const r of runs) r.ctl.abort(); }
    } finally {
      if (st.runs === runs) { $("go").disabled = false; $("pause").disabled = true; }
    }
  });

  // ---- the token ----
  $("token-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const t = $("token").value.trim();
    if (t) sessionStorage.setItem("drdam-token", t); else sessionStorage.removeItem("drdam-token");
    $("token").value = "";
    $("token").placeholder = t ? "token set for this tab" : "none";
    refresh();
  });
  $("refresh").addEventListener("click", refresh);
  if (token()) $("token").placeholder = "token set for this tab";

  // A hook for tests and demos: pause every stream once it reaches step n.
  window.drdam = { pauseAt: (n) => { st.pauseAt = n; }, resume: () => setPaused(false), state: st };
  refresh();
})();
