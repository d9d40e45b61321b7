package httpbytes

import (
	"reflect"
	"testing"
)

func TestParseDecimal(t *testing.T) {
	tests := []struct {
		in   string
		max  int64
		want int64
		ok   bool
	}{
		{"0", 100, 0, true},
		{"42", 100, 42, true},
		{"100", 100, 100, true},
		{"101", 100, 0, false},
		{"", 100, 0, false},
		{"-1", 100, 0, false},
		{"1a", 100, 0, false},
		{"99999999999999999999999", 1 << 62, 0, false},
	}
	for _, tt := range tests {
		n, ok := ParseDecimal([]byte(tt.in), tt.max)
		if ok != tt.ok || (ok && n != tt.want) {
			t.Errorf("ParseDecimal(%q, %d) = %d, %v; want %d, %v", tt.in, tt.max, n, ok, tt.want, tt.ok)
		}
	}
}

func TestTokens(t *testing.T) {
	var got []string
	ForTokens([]byte(" keep-alive ,, Upgrade\t,close"), func(b []byte) { got = append(got, string(b)) })
	if want := []string{"keep-alive", "Upgrade", "close"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("ForTokens = %q, want %q", got, want)
	}
	if !EqualFold([]byte("Content-LENGTH"), "content-length") || EqualFold([]byte("Content-Lengt"), "content-length") {
		t.Fatal("EqualFold")
	}
	if !IsToken("X-Trace-Id") || IsToken("bad header") || IsToken("") || !IsToken([]byte("GET")) {
		t.Fatal("IsToken")
	}
}
