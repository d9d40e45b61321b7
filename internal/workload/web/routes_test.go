package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/impl"
)

// TestCheckRoutes checks the part every HTTP workload shares: a route must answer 200 before its
// workload's check sees the answer, and an unknown route must answer 404.
func TestCheckRoutes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/gone":
			http.Error(w, "gone", http.StatusGone)
		default:
			w.Write([]byte("answer"))
		}
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	var seen []string
	check := Answer(func(route string, resp *http.Response, body string) []string {
		seen = append(seen, route+" "+body)
		return []string{"checked " + route}
	})
	var got []string
	for _, p := range CheckRoutes(t.Context(), addr, []string{"/a", "/gone"}, check) {
		got = append(got, p.String())
	}
	want := []string{"checked /a", "GET /gone: status 410, want 200", "GET /iobench-no-such-route: status 200, want 404"}
	if !slices.Equal(got, want) || !slices.Equal(seen, []string{"/a answer"}) {
		t.Fatalf("problems %q, answers checked %q; want %q and [/a answer]", got, seen, want)
	}
	own := func(context.Context, string, string) []impl.RouteProblem {
		return []impl.RouteProblem{{Finding: "no-keepalive", Msg: "own"}}
	}
	if p := CheckRoutes(t.Context(), addr, []string{"/"}, own); len(p) != 2 || p[0].String() != "no-keepalive: own" {
		t.Fatalf("a workload's own check: problems %q", p)
	}
	if p := CheckRoutes(t.Context(), addr, []string{"/gone"}, nil); len(p) != 2 || p[0].Msg != "GET /gone: status 410, want 200" {
		t.Fatalf("no check: problems %q", p)
	}
}
