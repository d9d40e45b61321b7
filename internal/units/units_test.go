package units

import (
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Duration
		wantErr bool
	}{
		{"10s", 10 * time.Second, false},
		{"2m", 2 * time.Minute, false},
		{"30", 30 * time.Second, false},
		{"1.5", 1500 * time.Millisecond, false},
		{"250ms", 250 * time.Millisecond, false},
		{"0", 0, false},
		{"-1s", 0, true},
		{"-3", 0, true},
		{"abc", 0, true},
		{"", 0, true},
		{"10x", 0, true},
		{"NaN", 0, true},
		{"1e300", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseDuration(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseDuration(%q) error = %v, wantErr %v", tt.in, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("ParseDuration(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"10s", "30", "-1", "1h2m3s", "1e9", ".5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDuration(s)
		if err == nil && d < 0 {
			t.Fatalf("ParseDuration(%q) = %v: negative without error", s, d)
		}
	})
}

func TestFormat(t *testing.T) {
	tests := []struct{ got, want string }{
		{Micros(812), "812.00us"},
		{Micros(1234), "1.23ms"},
		{Micros(2.5e6), "2.50s"},
		{Micros(90e6), "1.50m"},
		{Bytes(512), "512.00B"},
		{Bytes(1536), "1.50KiB"},
		{Bytes(3 * 1024 * 1024), "3.00MiB"},
		{Count(0), "0"},
		{Count(1234567), "1,234,567"},
		{Count(-1234), "-1,234"},
		{Rate(12345.678), "12,345.68"},
		{Rate(0.999), "1.00"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
