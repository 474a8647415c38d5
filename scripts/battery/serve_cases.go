package main

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// This file lists the service's request cases (serveCases) and the
// faults of its start (tokens, a second server, slow bodies, keys);
// serve.go runs the server and judges answers.

func serveCases() []tcase {
	const j = "application/json"
	row := `[0.1,0.2,0.3,0.4]`
	rows := func(n int) string { return strings.TrimSuffix(strings.Repeat(row+",", n), ",") }
	nan := npyF8([]int{1, 4}, []float64{0.1, 0, math.NaN(), 0})
	inf := npyF8([]int{1, 4}, []float64{0.1, math.Inf(1), 0, 0})
	// A body past 64 MiB: valid JSON rows, 65 MiB of them.
	var big bytes.Buffer
	big.WriteString(`{"patterns": [`)
	for big.Len() < 65<<20 {
		big.WriteString(row + ",")
	}
	big.WriteString(row + "]}")
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	R := func(id, method, path, ct, body string, status int, field string) reqCase {
		rc := reqCase{id: "req/" + id, method: method, path: path, ct: ct, status: status, field: field}
		if body != "" {
			rc.body = []byte(body)
		}
		if method == "POST" && strings.HasPrefix(path, "/v1/memories/m/patterns") || method == "PUT" && strings.HasPrefix(path, "/v1/memories/m/") {
			rc.mem = "m"
		}
		return rc
	}
	with := func(rc reqCase, f func(*reqCase)) reqCase { f(&rc); return rc }
	rcs := []reqCase{
		with(R("no-token", "GET", "/v1/memories", "", "", 401, "Authorization"), func(r *reqCase) { r.noAuth = true }),
		with(R("wrong-token", "GET", "/v1/memories", "", "", 401, "Authorization"), func(r *reqCase) { r.hdr = map[string]string{"Authorization": "Bearer nope"} }),
		with(R("token-without-bearer", "GET", "/v1/memories", "", "", 401, "Authorization"), func(r *reqCase) { r.hdr = map[string]string{"Authorization": token} }),
		with(R("add-no-token", "POST", "/v1/memories/m/patterns", j, `{"patterns": [`+row+`]}`, 401, "Authorization"), func(r *reqCase) { r.noAuth = true }),
		with(R("healthz-no-token", "GET", "/healthz", "", "", 200, ""), func(r *reqCase) { r.noAuth = true }),
		R("unknown-memory", "GET", "/v1/memories/nope", "", "", 404, "name"),
		R("add-to-unknown-memory", "POST", "/v1/memories/nope/patterns", j, `{"patterns": [`+row+`]}`, 404, "name"),
		R("delete-unknown-memory", "DELETE", "/v1/memories/nope", "", "", 404, "name"),
		R("snapshot-unknown-memory", "POST", "/v1/memories/nope/snapshot", "", "", 404, "name"),
		R("name-dot-first", "PUT", "/v1/memories/.hidden", j, `{"d": 4}`, 400, "name"),
		R("name-too-long", "PUT", "/v1/memories/"+strings.Repeat("a", 65), j, `{"d": 4}`, 400, "name"),
		R("name-path-escape", "PUT", "/v1/memories/..%2Fetc", j, `{"d": 4}`, 400, "name"),
		R("name-space", "PUT", "/v1/memories/a%20b", j, `{"d": 4}`, 400, "name"),
		R("name-nul", "PUT", "/v1/memories/a%00b", j, `{"d": 4}`, 400, "name"),
		R("name-unicode", "PUT", "/v1/memories/caf%C3%A9", j, `{"d": 4}`, 400, "name"),
		R("unknown-route", "GET", "/v2/memories", "", "", 404, ""),
		R("wrong-method", "PATCH", "/v1/memories/m", j, `{}`, 405, ""),
		R("create-bad-json", "PUT", "/v1/memories/n", j, `{"d": 4,`, 400, ""),
		R("create-two-values", "PUT", "/v1/memories/n", j, `{"d": 4} {}`, 400, ""),
		R("create-no-d", "PUT", "/v1/memories/n", j, `{"y": 100}`, 400, "d"),
		R("create-d-string", "PUT", "/v1/memories/n", j, `{"d": "four"}`, 400, "d"),
		R("create-d-over-limit", "PUT", "/v1/memories/n", j, `{"d": 65537}`, 422, "d"),
		with(R("create-d-zero", "PUT", "/v1/memories/n", j, `{"d": 0}`, 400, "d"), func(r *reqCase) { r.alt = []int{422} }),
		with(R("create-d-negative", "PUT", "/v1/memories/n", j, `{"d": -4}`, 400, "d"), func(r *reqCase) { r.alt = []int{422} }),
		with(R("create-d-1e20", "PUT", "/v1/memories/n", j, `{"d": 1e20}`, 400, "d"), func(r *reqCase) { r.alt = []int{422} }),
		R("create-huge-y", "PUT", "/v1/memories/n", j, `{"d": 4, "y": 1000000000}`, 422, "y"),
		R("create-y-over-limit", "PUT", "/v1/memories/n", j, `{"d": 4, "y": 4000001}`, 422, "y"),
		R("create-unknown-field", "PUT", "/v1/memories/n", j, `{"d": 4, "colour": "red"}`, 400, "colour"),
		R("create-unknown-basis", "PUT", "/v1/memories/n", j, `{"d": 4, "basis": "sine"}`, 400, "basis"),
		R("create-unknown-precision", "PUT", "/v1/memories/n", j, `{"d": 4, "precision": "float16"}`, 400, "precision"),
		R("create-negative-beta", "PUT", "/v1/memories/n", j, `{"d": 4, "y": 500, "beta": -1}`, 422, "beta"),
		R("create-beta-string", "PUT", "/v1/memories/n", j, `{"d": 4, "y": 500, "beta": "inf"}`, 400, "beta"),
		with(R("create-beta-1e308", "PUT", "/v1/memories/n", j, `{"d": 4, "y": 500, "beta": 1e308}`, 422, "beta"), func(r *reqCase) {
			r.msg = "the largest β at which this memory could store a pattern of unit norm"
		}),
		with(R("create-dot-beta-2000", "PUT", "/v1/memories/n", j, `{"d": 4, "y": 500, "similarity": "dot", "beta": 2000}`, 422, "beta"), func(r *reqCase) { r.msg = "exp(700)" }),
		R("create-y-with-mrdam", "PUT", "/v1/memories/n", j, `{"d": 4, "rep": "mrdam", "y": 100}`, 400, "y"),
		R("create-not-json", "PUT", "/v1/memories/n", "text/plain", `d=4`, 415, "Content-Type"),
		R("create-deep-nesting", "PUT", "/v1/memories/n", j, deep, 400, ""),
		R("create-other-config", "PUT", "/v1/memories/m", j, `{"d": 4, "y": 600, "projection": "structured"}`, 409, "name"),
		R("create-same-config", "PUT", "/v1/memories/m", j, `{"d": 4, "y": 500, "projection": "structured"}`, 200, ""),
		R("add-bad-json", "POST", "/v1/memories/m/patterns", j, `{"patterns": [[0.1,`, 400, ""),
		R("add-no-patterns-field", "POST", "/v1/memories/m/patterns", j, `{"rows": [`+row+`]}`, 400, "patterns"),
		R("add-patterns-null", "POST", "/v1/memories/m/patterns", j, `{"patterns": null}`, 400, "patterns"),
		R("add-patterns-object", "POST", "/v1/memories/m/patterns", j, `{"patterns": {"a": 1}}`, 400, "patterns"),
		R("add-wrong-length", "POST", "/v1/memories/m/patterns", j, `{"patterns": [[0.1,0.2,0.3]]}`, 400, "patterns"),
		R("add-ragged", "POST", "/v1/memories/m/patterns", j, `{"patterns": [`+row+`,[1,2]]}`, 400, "patterns"),
		R("add-strings", "POST", "/v1/memories/m/patterns", j, `{"patterns": [["a","b","c","d"]]}`, 400, "patterns"),
		R("add-no-rows", "POST", "/v1/memories/m/patterns", j, `{"patterns": []}`, 400, "patterns"),
		R("add-4097-rows", "POST", "/v1/memories/m/patterns", j, `{"patterns": [`+rows(4097)+`]}`, 413, "patterns"),
		{id: "req/add-body-65MiB", method: "POST", path: "/v1/memories/m/patterns", ct: j, body: big.Bytes(), status: 413, field: "", mem: "m"},
		{id: "req/add-npy-nan", method: "POST", path: "/v1/memories/m/patterns", ct: "application/x-npy", body: nan, status: 400, field: "patterns", mem: "m", msg: "row 1, column 3"},
		{id: "req/add-npy-inf", method: "POST", path: "/v1/memories/m/patterns", ct: "application/x-npy", body: inf, status: 400, field: "patterns", mem: "m", msg: "row 1, column 2"},
		{id: "req/add-npy-wrong-d", method: "POST", path: "/v1/memories/m/patterns", ct: "application/x-npy", body: npyF8([]int{1, 3}, []float64{0.1, 0.2, 0.3}), status: 400, field: "patterns", mem: "m"},
		{id: "req/add-npy-truncated", method: "POST", path: "/v1/memories/m/patterns", ct: "application/x-npy", body: npyF8([]int{2, 4}, make([]float64, 8))[:100], status: 400, field: "patterns", mem: "m"},
		{id: "req/add-npy-huge-claim", method: "POST", path: "/v1/memories/m/patterns", ct: "application/x-npy", body: npyFile(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000, 1000000), }", make([]byte, 24)), status: 400, alt: []int{413}, anyField: true, mem: "m"},
		R("add-not-npy", "POST", "/v1/memories/m/patterns", "application/x-npy", "NUMPY?", 400, "patterns"),
		R("add-value-too-large", "POST", "/v1/memories/m/patterns", j, `{"patterns": [[1e300,0,0,0]]}`, 422, "patterns"),
		R("add-wrong-content-type", "POST", "/v1/memories/m/patterns", "text/csv", "1,2,3,4", 415, "Content-Type"),
		with(R("add-null-in-row", "POST", "/v1/memories/m/patterns", j, `{"patterns": [[0.1,null,0.3,0.4]]}`, 400, "patterns"), func(r *reqCase) { r.msg = "row 1, column 2" }),
		with(R("add-string-in-row-2", "POST", "/v1/memories/m/patterns", j, `{"patterns": [`+row+`,[0.1,0.2,"x",0.4]]}`, 400, "patterns"), func(r *reqCase) { r.msg = "row 2, column 3" }),
		with(R("add-boolean-in-row", "POST", "/v1/memories/m/patterns", j, `{"patterns": [[0.1,0.2,0.3,true]]}`, 400, "patterns"), func(r *reqCase) { r.msg = "row 1, column 4" }),
		with(R("add-flat-row", "POST", "/v1/memories/m/patterns", j, `{"patterns": [0.1,0.2,0.3,true]}`, 400, "patterns"), func(r *reqCase) { r.msg = "row 1" }),
		with(R("add-key-with-space", "POST", "/v1/memories/m/patterns", j, `{"patterns": [`+row+`]}`, 400, "Idempotency-Key"), func(r *reqCase) { r.hdr = map[string]string{"Idempotency-Key": "a b"} }),
		with(R("add-key-256-chars", "POST", "/v1/memories/m/patterns", j, `{"patterns": [`+row+`]}`, 400, "Idempotency-Key"), func(r *reqCase) { r.hdr = map[string]string{"Idempotency-Key": strings.Repeat("k", 256)} }),
		R("remove-more-than-stored", "POST", "/v1/memories/m/patterns:remove", j, `{"patterns": [`+rows(3)+`]}`, 422, "patterns"),
		with(R("remove-never-added", "POST", "/v1/memories/m/patterns:remove", j, `{"patterns": [[0.3,0.3,0.3,0.3]]}`, 409, "patterns"), func(r *reqCase) { r.msg = "row 1 was never added" }),
		R("remove-force-not-bool", "POST", "/v1/memories/m/patterns:remove?force=yes", j, `{"patterns": [`+row+`]}`, 400, "force"),
		R("remove-wrong-length", "POST", "/v1/memories/m/patterns:remove", j, `{"patterns": [[0.1,0.2]]}`, 400, "patterns"),
		R("energy-wrong-length", "POST", "/v1/memories/m/energy", j, `{"queries": [[1,2]]}`, 400, "queries"),
		R("energy-no-queries", "POST", "/v1/memories/m/energy", j, `{}`, 400, "queries"),
		R("energy-grad-not-bool", "POST", "/v1/memories/m/energy", j, `{"queries": [`+row+`], "grad": "yes"}`, 400, "grad"),
		with(R("energy-null-in-query", "POST", "/v1/memories/m/energy", j, `{"queries": [[null,0,0,0]]}`, 400, "queries"), func(r *reqCase) { r.msg = "row 1, column 1" }),
		R("energy-value-too-large", "POST", "/v1/memories/m/energy", j, `{"queries": [[1e300,0,0,0]]}`, 422, "queries"),
		R("energy-4097-queries", "POST", "/v1/memories/m/energy", j, `{"queries": [`+rows(4097)+`]}`, 413, "queries"),
		R("energy-empty-memory", "POST", "/v1/memories/e/energy", j, `{"queries": [`+row+`]}`, 409, "name"),
		R("recall-max-steps-over", "POST", "/v1/memories/m/recall", j, `{"queries": [`+row+`], "max_steps": 10001}`, 422, "max_steps"),
		R("recall-negative-step", "POST", "/v1/memories/m/recall", j, `{"queries": [`+row+`], "step": -0.1}`, 422, "step"),
		R("recall-empty-box", "POST", "/v1/memories/m/recall", j, `{"queries": [`+row+`], "box": [1, 0]}`, 422, "box"),
		R("recall-box-of-three", "POST", "/v1/memories/m/recall", j, `{"queries": [`+row+`], "box": [0, 1, 2]}`, 400, "box"),
		R("recall-mask-length", "POST", "/v1/memories/m/recall", j, `{"queries": [`+row+`], "mask": [true, false]}`, 400, "mask"),
		R("recall-mask-rows-not-b", "POST", "/v1/memories/m/recall", j, `{"queries": [`+rows(3)+`], "mask": [[1,0,0,0],[1,0,0,0]]}`, 400, "mask"),
		R("recall-mask-strings", "POST", "/v1/memories/m/recall", j, `{"queries": [`+row+`], "mask": ["a","b","c","d"]}`, 400, "mask"),
		R("recall-stream-bad-json", "POST", "/v1/memories/m/recall:stream", j, `{"queries": [`, 400, ""),
		R("merge-not-a-model", "PUT", "/v1/memories/m/merge", "application/octet-stream", "not a model", 400, "body"),
		{id: "req/merge-huge-header", method: "PUT", path: "/v1/memories/m/merge", ct: "application/octet-stream", body: craftedModel(1, 21_000_000, 200, nil), status: 409, alt: []int{400, 422, 507}, field: "body", mem: "m"},
		{id: "req/merge-other-config", method: "PUT", path: "/v1/memories/m/merge", ct: "application/octet-stream", body: craftedModel(4, 4, 500, nil), status: 409, field: "body", mem: "m"},
	}
	var cs []tcase
	for _, rc := range rcs {
		cs = append(cs, rc.tcase())
	}
	cs = append(cs,
		tcase{"req/slow-body-1-byte-per-s", "serve/request", slowBody},
		tcase{"idem/retry-same-key", "serve/idem", idemRetry},
		tcase{"idem/same-key-other-body", "serve/idem", idemOtherBody},
		tcase{"idem/remove-retry", "serve/idem", idemRemove},
		tcase{"fault/sigterm-graceful", "serve/fault", sigtermMain},
		tcase{"fault/check-clean-folder", "serve/fault", checkClean},
		tcase{"fault/token-blank", "serve/fault", tokenRefused("DRDAM_TOKEN=   ", "DRDAM_TOKEN")},
		tcase{"fault/token-with-space", "serve/fault", tokenRefused("DRDAM_TOKEN=a b", "DRDAM_TOKEN")},
		tcase{"fault/token-file-empty", "serve/fault", tokenFileEmpty},
		tcase{"fault/data-is-a-file", "serve/fault", dataIsFile},
		tcase{"fault/check-and-salvage", "serve/fault", checkAndSalvage},
		tcase{"fault/second-server", "serve/fault", secondServer},
	)
	cs = append(cs, walCases()...)
	cs = append(cs,
		tcase{"fault/torn-tail", "serve/fault", tornTail},
		tcase{"fault/temporary-files", "serve/fault", tempFiles},
	)
	cs = append(cs, garbledCases()...)
	cs = append(cs, budgetCases()...)
	cs = append(cs, tcase{"fault/sigkill-loop-20", "serve/fault", killLoop})
	return cs
}

// slowBody: a body trickled at 1 byte/s is cut with 408 within about
// 10 s (5 s of grace, then 64 KiB/s), and the memory is unchanged.
func slowBody(b *battery) result {
	s, err := b.mainServer()
	if err != nil {
		return result{class: unclear, msg: err.Error(), note: "no server"}
	}
	before, _ := b.info(s, "m", true)
	conn, err := net.Dial("tcp", s.addr)
	if err != nil {
		return result{class: unclear, msg: err.Error()}
	}
	defer conn.Close()
	t0 := time.Now()
	fmt.Fprintf(conn, "POST /v1/memories/m/patterns HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n", token)
	done := make(chan string, 1)
	go func() {
		buf := make([]byte, 8192)
		n, _ := io.ReadAtLeast(conn, buf, 1)
		done <- string(buf[:n])
	}()
	body := `{"patterns": [[0.1,0.2,0.3,0.4]`
	var resp string
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	limit := time.After(20 * time.Second)
	i := 0
loop:
	for {
		select {
		case resp = <-done:
			break loop
		case <-tick.C:
			conn.Write([]byte{body[i%len(body)]})
			i++
		case <-limit:
			return result{class: hang, msg: fmt.Sprintf("no answer after 20 s of a body at 1 byte/s (%d bytes sent)", i)}
		}
	}
	el := time.Since(t0)
	b.logf("slow body: answered after %v: %s", el, excerpt(resp, 500))
	st := firstLine(resp)
	if !strings.HasPrefix(resp, "HTTP/1.1 408") {
		if strings.HasPrefix(resp, "HTTP/1.1 2") {
			return result{class: silentWrong, msg: st}
		}
		return result{class: unclear, msg: st, note: fmt.Sprintf("after %v, want 408", el.Round(time.Millisecond))}
	}
	if after, _ := b.info(s, "m", true); after != before {
		return result{class: silentWrong, msg: st, note: "the memory changed"}
	}
	msg := st
	if k := strings.Index(resp, "{"); k >= 0 {
		msg += " " + resp[k:]
	}
	if el > 12*time.Second {
		return result{class: unclear, msg: msg, note: fmt.Sprintf("cut after %v, want about 10 s at most", el.Round(time.Millisecond))}
	}
	return result{class: ok, msg: fmt.Sprintf("cut after %v: %s", el.Round(100*time.Millisecond), msg)}
}

// idemRetry: a retry with the same Idempotency-Key is answered the same
// body with Idempotent-Replayed: true, and changes nothing.
func idemRetry(b *battery) result {
	s, err := b.mainServer()
	if err != nil {
		return result{class: unclear, msg: err.Error(), note: "no server"}
	}
	body := []byte(`{"patterns": [[0.3,0.1,0.2,0.1],[0.1,0.3,0.1,0.2]]}`)
	key := map[string]string{"Idempotency-Key": "battery-retry-1"}
	a0, _ := b.info(s, "m", true)
	a1 := b.do(s, "POST", "/v1/memories/m/patterns", "application/json", body, key, true)
	if a1.err != nil || a1.status != 200 {
		return result{class: unclear, msg: fmt.Sprintf("%d %v %s", a1.status, a1.err, a1.body), note: "the first keyed addition failed"}
	}
	m1, _ := b.info(s, "m", true)
	a2 := b.do(s, "POST", "/v1/memories/m/patterns", "application/json", body, key, true)
	m2, _ := b.info(s, "m", true)
	msg := fmt.Sprintf("%d %s Idempotent-Replayed=%q", a2.status, strings.TrimSpace(string(a2.body)), a2.hdr.Get("Idempotent-Replayed"))
	if a2.err != nil {
		return result{class: unclear, msg: a2.err.Error()}
	}
	if m2.Count != m1.Count {
		return result{class: silentWrong, msg: msg, note: fmt.Sprintf("the retry added again: count %d → %d → %d", a0.Count, m1.Count, m2.Count)}
	}
	if a2.status != 200 || !bytes.Equal(bytes.TrimSpace(a1.body), bytes.TrimSpace(a2.body)) || a2.hdr.Get("Idempotent-Replayed") != "true" {
		return result{class: unclear, msg: msg, note: fmt.Sprintf("want 200, the first body %s and Idempotent-Replayed: true", strings.TrimSpace(string(a1.body)))}
	}
	return result{class: ok, msg: msg}
}

// idemOtherBody: another body under a used key is 422, changing nothing.
func idemOtherBody(b *battery) result {
	s, err := b.mainServer()
	if err != nil {
		return result{class: unclear, msg: err.Error(), note: "no server"}
	}
	before, _ := b.info(s, "m", true)
	logLen := len(s.stderr.String())
	a := b.do(s, "POST", "/v1/memories/m/patterns", "application/json", []byte(`{"patterns": [[0.2,0.2,0.2,0.2]]}`), map[string]string{"Idempotency-Key": "battery-retry-1"}, true)
	return b.judge(s, reqCase{status: 422, field: "Idempotency-Key", anyField: true, mem: "m"}, a, before, logLen)
}

// idemRemove: a removal retried under its key removes once.
func idemRemove(b *battery) result {
	s, err := b.mainServer()
	if err != nil {
		return result{class: unclear, msg: err.Error(), note: "no server"}
	}
	body := []byte(`{"patterns": [[0.3,0.1,0.2,0.1]]}`)
	key := map[string]string{"Idempotency-Key": "battery-remove-1"}
	a1 := b.do(s, "POST", "/v1/memories/m/patterns:remove", "application/json", body, key, true)
	if a1.err != nil || a1.status != 200 {
		return result{class: unclear, msg: fmt.Sprintf("%d %v %s", a1.status, a1.err, a1.body), note: "the first keyed removal failed"}
	}
	m1, _ := b.info(s, "m", true)
	a2 := b.do(s, "POST", "/v1/memories/m/patterns:remove", "application/json", body, key, true)
	m2, _ := b.info(s, "m", true)
	msg := fmt.Sprintf("%d %s Idempotent-Replayed=%q", a2.status, strings.TrimSpace(string(a2.body)), a2.hdr.Get("Idempotent-Replayed"))
	if m2.Count != m1.Count {
		return result{class: silentWrong, msg: msg, note: fmt.Sprintf("the retry removed again: count %d → %d", m1.Count, m2.Count)}
	}
	if a2.status != 200 || a2.hdr.Get("Idempotent-Replayed") != "true" {
		return result{class: unclear, msg: msg, note: "want the first answer, replayed"}
	}
	return result{class: ok, msg: msg}
}

// sigtermMain: SIGTERM stops the shared server with status 0 after a
// snapshot of each memory.
func sigtermMain(b *battery) result {
	s, err := b.mainServer()
	if err != nil {
		return result{class: unclear, msg: err.Error(), note: "no server"}
	}
	t0 := time.Now()
	if !s.stop() {
		return result{class: hang, msg: "SIGTERM did not stop the server within 20 s"}
	}
	msg := fmt.Sprintf("%s after %v", s.status(), time.Since(t0).Round(time.Millisecond))
	if cl, note := s.crashed(); cl != "" && cl != fatal {
		return result{class: cl, msg: msg, note: note}
	}
	if s.exit != 0 || s.sig != 0 {
		return result{class: unclear, msg: msg + ": " + excerpt(s.stderr.String(), 200), note: "want exit 0"}
	}
	snaps, _ := filepath.Glob(filepath.Join(shared.dir, "m", "snapshot-*.drdam"))
	if len(snaps) == 0 {
		return result{class: silentWrong, msg: msg, note: "no snapshot after a graceful stop"}
	}
	return result{class: ok, msg: msg + ", " + filepath.Base(snaps[len(snaps)-1])}
}

// checkClean: --check on the folder of the stopped shared server: exit 0.
func checkClean(b *battery) result {
	if shared.dir == "" {
		return result{class: unclear, msg: "no folder"}
	}
	p := b.run(runOpts{dir: b.work}, "serve", "--data", shared.dir, "--check")
	if cl, note := crashClass(p); cl != "" {
		return result{class: cl, msg: note}
	}
	if p.exit != 0 {
		return result{class: unclear, msg: errLine(p), note: fmt.Sprintf("exit %d on a clean folder, want 0", p.exit)}
	}
	return result{class: ok, msg: lastLine(p.stdout)}
}

func lastLine(s string) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	return l[len(l)-1]
}

// refusedToStart runs drdam serve with env and extra flags for at most 8 s:
// it must exit non-zero naming one of names; running on is silent-wrong.
func (b *battery) refusedToStart(dir string, env []string, names []string, extra ...string) result {
	args := append([]string{"serve", "--data", filepath.Join(dir, "data"), "--addr", freeAddr()}, extra...)
	p := b.run(runOpts{dir: dir, env: env, timeout: 8 * time.Second}, args...)
	if p.timedOut {
		return result{class: silentWrong, msg: "started and served: " + firstLine(p.stderr), note: "must refuse to start"}
	}
	if cl, note := crashClass(p); cl != "" {
		return result{class: cl, msg: note}
	}
	if p.exit == 0 {
		return result{class: silentWrong, msg: errLine(p), note: "exit 0"}
	}
	for _, n := range names {
		if strings.Contains(p.stderr, n) {
			return result{class: ok, msg: errLine(p)}
		}
	}
	return result{class: unclear, msg: errLine(p), note: "names none of " + strings.Join(quoteAll(names), ", ")}
}

func tokenRefused(env, name string) func(b *battery) result {
	return func(b *battery) result { return b.refusedToStart(b.caseDir(b.cur), []string{env}, []string{name}) }
}

func tokenFileEmpty(b *battery) result {
	dir := b.caseDir(b.cur)
	os.WriteFile(filepath.Join(dir, "empty.txt"), []byte("  \n"), 0o600)
	return b.refusedToStart(dir, nil, []string{"empty.txt"}, "--token-file", filepath.Join(dir, "empty.txt"))
}

func dataIsFile(b *battery) result {
	dir := b.caseDir(b.cur)
	f := filepath.Join(dir, "afile")
	os.WriteFile(f, []byte("x"), 0o644)
	p := b.run(runOpts{dir: dir, timeout: 8 * time.Second}, "serve", "--data", f, "--addr", freeAddr())
	if p.timedOut {
		return result{class: silentWrong, msg: "started and served", note: "must refuse a --data that is a file"}
	}
	if cl, note := crashClass(p); cl != "" {
		return result{class: cl, msg: note}
	}
	if p.exit == 0 {
		return result{class: silentWrong, msg: errLine(p)}
	}
	if !strings.Contains(p.stderr, "afile") {
		return result{class: unclear, msg: errLine(p), note: "does not name the folder"}
	}
	return result{class: ok, msg: errLine(p)}
}

func checkAndSalvage(b *battery) result {
	return b.refusedToStart(b.caseDir(b.cur), nil, []string{"--check", "--salvage"}, "--check", "--salvage")
}

// secondServer: a second drdam serve on the same --data exits non-zero at
// once, naming the folder and the first's process id.
func secondServer(b *battery) result {
	dir := filepath.Join(b.caseDir(b.cur), "data")
	s1, err := b.startServer(dir, "", 0, nil)
	defer s1.stop()
	if err != nil {
		return result{class: unclear, msg: err.Error(), note: "the first server did not start"}
	}
	p := b.run(runOpts{dir: b.work, timeout: 8 * time.Second}, "serve", "--data", dir, "--addr", freeAddr())
	if p.timedOut {
		return result{class: silentWrong, msg: "the second server started on the same folder: " + firstLine(p.stderr), note: "two servers on one folder"}
	}
	if cl, note := crashClass(p); cl != "" {
		return result{class: cl, msg: note}
	}
	if p.exit == 0 {
		return result{class: silentWrong, msg: errLine(p), note: "exit 0"}
	}
	msg := errLine(p)
	if !strings.Contains(p.stderr, dir) || !strings.Contains(p.stderr, strconv.Itoa(s1.pid)) {
		return result{class: unclear, msg: msg, note: fmt.Sprintf("want the folder and pid %d named", s1.pid)}
	}
	return result{class: ok, msg: msg}
}
