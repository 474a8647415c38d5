package cpuid

import "testing"

func TestSet(t *testing.T) {
	b := Best()
	prev := Set(Portable)
	if Current() != Portable {
		t.Errorf("after Set(Portable), Current = %v", Current())
	}
	Set(AVX512)
	if Current() != b {
		t.Errorf("Set(AVX512) on a machine whose best is %v gives %v", b, Current())
	}
	Set(prev)
	t.Logf("best level: %v; supported: %v", b, Supported())
}
