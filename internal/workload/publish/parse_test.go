package publish

import "testing"

func TestParseResultLine(t *testing.T) {
	cases := []struct {
		in   string
		ok   bool
		rate float64
	}{
		{"result sent=1000 seconds=0.5", true, 2000},
		{"  result seconds=2 sent=10 extra=1", true, 5},
		{"result sent=10", false, 0},
		{"result sent=-1 seconds=1", false, 0},
		{"result sent=1 seconds=NaN", false, 0},
		{"ready", false, 0},
	}
	for _, c := range cases {
		r, ok := ParseResultLine(c.in)
		if ok != c.ok || r.Rate != c.rate {
			t.Errorf("%q: %+v %v", c.in, r, ok)
		}
	}
}

func FuzzParseResultLine(f *testing.F) {
	f.Add("result sent=1000 seconds=0.5")
	f.Fuzz(func(t *testing.T, s string) {
		if r, ok := ParseResultLine(s); ok && (r.Sent < 0 || r.Seconds < 0) {
			t.Fatalf("%q: %+v", s, r)
		}
	})
}

func TestBitset(t *testing.T) {
	var a, b bitset
	for _, i := range []uint64{0, 63, 64, 1000} {
		a.set(i)
	}
	b.set(1000)
	b.set(5000)
	if a.set(maxSeq) {
		t.Fatal("set beyond maxSeq")
	}
	a.or(&b)
	if a.count() != 5 {
		t.Fatalf("count %d", a.count())
	}
}
