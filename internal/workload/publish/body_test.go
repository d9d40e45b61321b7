package publish

import (
	"strings"
	"testing"
	"time"
)

func TestBodyRoundTrip(t *testing.T) {
	now := time.Unix(1715170000, 123456789)
	for _, format := range []string{BodyBinary, BodySeed, BodySeedMin} {
		buf := newBody(format, 100)
		b := encode(buf, format, 4242, 3, now)
		st, err := Decode(b)
		if err != nil {
			t.Fatalf("%s: %v (%q)", format, err, b)
		}
		if st.Seq != 4242 {
			t.Fatalf("%s: seq %d", format, st.Seq)
		}
		switch format {
		case BodyBinary:
			if len(b) != 100 || st.Publisher != 3 || st.SentNS != now.UnixNano() {
				t.Fatalf("binary: len %d stamp %+v", len(b), st)
			}
		case BodySeed:
			if st.SentNS != now.UnixNano() || !strings.Contains(string(b), `"content":"Hello World #4242"`) {
				t.Fatalf("seed: %q %+v", b, st)
			}
		case BodySeedMin:
			if st.SentNS != 0 || string(b) != `{"id":4242,"content":"Hello World #4242"}` {
				t.Fatalf("seed-min: %q %+v", b, st)
			}
		}
	}
	// Python's json.dumps of the seed's dict, with spaces and a zone-less isoformat timestamp.
	st, err := Decode([]byte(`{"id": 7, "content": "Hello World #7", "timestamp": "2025-05-08T12:00:00.123456"}`))
	if err != nil || st.Seq != 7 || st.SentNS == 0 {
		t.Fatalf("python body: %+v %v", st, err)
	}
	if _, err := Decode([]byte("hello")); err == nil {
		t.Fatal("foreign body decoded")
	}
}

func TestEncodeDoesNotAllocate(t *testing.T) {
	now := time.Now()
	for _, format := range []string{BodyBinary, BodySeedMin, BodySeed} {
		buf := newBody(format, 100)
		if n := testing.AllocsPerRun(100, func() { buf = encode(buf, format, 123456, 1, now) }); n > 0 {
			t.Errorf("%s: %v allocations per body", format, n)
		}
	}
}

// FuzzDecode: no body, however malformed, may panic the consumer.
func FuzzDecode(f *testing.F) {
	f.Add(encode(newBody(BodyBinary, 40), BodyBinary, 1, 2, time.Now()))
	f.Add(encode(newBody(BodySeed, 0), BodySeed, 99, 0, time.Now()))
	f.Add([]byte(`{"id": 1, "timestamp": "x"}`))
	f.Add([]byte(`{"id":"1"}`))
	f.Add([]byte(`{"id":`))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = Decode(b)
	})
}

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
