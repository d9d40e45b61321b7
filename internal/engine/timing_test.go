package engine

import (
	"testing"
	"time"
)

func TestServerTiming(t *testing.T) {
	for _, tc := range []struct {
		value, metric string
		want          time.Duration
		ok            bool
	}{
		{"app;dur=21.3", "app", 21300 * time.Microsecond, true},
		{"db;dur=2, app;desc=\"handler\";dur=10", "app", 10 * time.Millisecond, true},
		{"APP ; DUR=0.042", "app", 42 * time.Microsecond, true},
		{"app;dur=\"7.5\"", "app", 7500 * time.Microsecond, true},
		{"app;dur=1.23456", "app", 1234 * time.Microsecond, true},
		{"app", "app", 0, false},
		{"app;dur=", "app", 0, false},
		{"app;dur=-1", "app", 0, false},
		{"app;dur=1e3", "app", 0, false},
		{"db;dur=2", "app", 0, false},
		{"", "app", 0, false},
	} {
		got, ok := ServerTiming([]byte(tc.value), tc.metric)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ServerTiming(%q, %q) = %v, %v; want %v, %v", tc.value, tc.metric, got, ok, tc.want, tc.ok)
		}
	}
}

func TestServerTimingAllocs(t *testing.T) {
	v := []byte("db;dur=2, app;desc=x;dur=21.3")
	if n := testing.AllocsPerRun(100, func() { ServerTiming(v, "app") }); n != 0 {
		t.Fatalf("ServerTiming allocates %v times, want 0", n)
	}
}

func FuzzServerTiming(f *testing.F) {
	f.Add([]byte("app;dur=21.3"), "app")
	f.Fuzz(func(t *testing.T, v []byte, m string) {
		if d, ok := ServerTiming(v, m); ok && d < 0 {
			t.Fatalf("negative duration %v from %q", d, v)
		}
	})
}
