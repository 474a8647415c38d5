package client

import (
	"net/http"
	"testing"
	"time"
)

// TestDelay: the wait after attempt n is within [base·2ⁿ⁻¹/2,
// base·2ⁿ⁻¹], at most MaxBackoff (5 s) from the 7th on with a base of
// 100 ms, and jittered (200 draws are not all alike); a Retry-After's
// wait is taken as it is, capped at MaxBackoff.
func TestDelay(t *testing.T) {
	const base = 100 * time.Millisecond
	for n := 1; n <= 12; n++ {
		hi := min(base<<(n-1), MaxBackoff)
		seen := map[time.Duration]bool{}
		for range 200 {
			d := delay(n, base, -1)
			if d < hi/2 || d > hi {
				t.Fatalf("delay(%d): %v, want [%v, %v]", n, d, hi/2, hi)
			}
			seen[d] = true
		}
		if len(seen) < 100 {
			t.Errorf("delay(%d): %d distinct waits in 200, want jitter", n, len(seen))
		}
	}
	if d := delay(1, base, 2*time.Second); d != 2*time.Second {
		t.Errorf("a Retry-After of 2 s: %v", d)
	}
	if d := delay(1, base, time.Hour); d != MaxBackoff {
		t.Errorf("a Retry-After of an hour: %v, want %v", d, MaxBackoff)
	}
}

// TestRetryAfterHeader: seconds, capped; an HTTP date (about 3 s ahead);
// none, a negative number or a bad value is -1 (no Retry-After).
func TestRetryAfterHeader(t *testing.T) {
	at := func(v string) time.Duration { return retryAfter(http.Header{"Retry-After": {v}}) }
	if d := at("2"); d != 2*time.Second {
		t.Errorf("2: %v", d)
	}
	if d := at("86400"); d != MaxBackoff {
		t.Errorf("86400: %v, want %v", d, MaxBackoff)
	}
	date := time.Now().Add(3500 * time.Millisecond).UTC().Format(http.TimeFormat) // 2.5–3.5 s ahead
	if d := at(date); d < 2*time.Second || d > 3500*time.Millisecond {
		t.Errorf("%s: %v, want about 3 s", date, d)
	}
	for _, v := range []string{"", "-1", "soon"} {
		if d := at(v); d != -1 {
			t.Errorf("%q: %v, want -1", v, d)
		}
	}
	if d := retryAfter(http.Header{}); d != -1 {
		t.Errorf("no header: %v", d)
	}
}
