package gopublisher

import (
	"strings"
	"testing"
	"time"
)

func TestBodyRoundTrip(t *testing.T) {
	now := time.Unix(1715170000, 123456789)
	for _, format := range []string{BodyBinary, BodySeed, BodySeedMin} {
		buf := NewBody(format, 100)
		b := Encode(buf, format, 4242, 3, now)
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
		buf := NewBody(format, 100)
		if n := testing.AllocsPerRun(100, func() { buf = Encode(buf, format, 123456, 1, now) }); n > 0 {
			t.Errorf("%s: %v allocations per body", format, n)
		}
	}
}

// FuzzDecode: no body, however malformed, may panic the consumer.
func FuzzDecode(f *testing.F) {
	f.Add(Encode(NewBody(BodyBinary, 40), BodyBinary, 1, 2, time.Now()))
	f.Add(Encode(NewBody(BodySeed, 0), BodySeed, 99, 0, time.Now()))
	f.Add([]byte(`{"id": 1, "timestamp": "x"}`))
	f.Add([]byte(`{"id":"1"}`))
	f.Add([]byte(`{"id":`))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = Decode(b)
	})
}
