package suggest

import "testing"

func TestClosest(t *testing.T) {
	impls := []string{"go-bus", "go-hello", "node-hello", "python-asyncio-hello", "php-fanout"}
	for _, tc := range []struct {
		got, want string
		ok        bool
	}{
		{"go-helo", "go-hello", true},
		{"GO-HELLO", "go-hello", true},
		{"python-asyncio-helo", "python-asyncio-hello", true},
		{"php-fanuot", "php-fanout", true},
		{"rust-hello", "node-hello", false}, // 4 edits: too far for a 10-letter name
		{"x", "go-bus", false},
		{"", "", false},
	} {
		name, ok := Closest(tc.got, impls)
		if ok != tc.ok || (ok && name != tc.want) {
			t.Errorf("Closest(%q) = %q, %v; want %q, %v", tc.got, name, ok, tc.want, tc.ok)
		}
	}
	if h := Hint("go-helo", impls); h != `did you mean "go-hello"?` {
		t.Errorf("Hint = %q", h)
	}
	if h := Hint("zzz", impls); h != "" {
		t.Errorf("Hint of a far name = %q, want none", h)
	}
	if _, ok := Closest("go-hello", nil); ok {
		t.Error("Closest with nothing known suggested a name")
	}
}
