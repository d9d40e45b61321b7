package web

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/iobench/iobench/internal/impl"
)

// RouteCheck returns what is wrong with one route of an impl started on addr: an HTTP workload's
// own check of what the route answers (docs/IMPLS.md, "The HTTP routes").
type RouteCheck func(ctx context.Context, addr, route string) []impl.RouteProblem

// AnswerCheck returns what is wrong with a route's answer of status 200: the response (its body
// read and closed) and its body.
type AnswerCheck func(route string, resp *http.Response, body string) []string

// Answer returns the RouteCheck that asks GET route once on a new connection (Get): it must
// answer status 200, and check then looks at the answer.
func Answer(check AnswerCheck) RouteCheck {
	return func(ctx context.Context, addr, route string) []impl.RouteProblem {
		resp, body, err := Get(ctx, addr, route)
		var msgs []string
		switch {
		case err != nil:
			msgs = []string{fmt.Sprintf("GET %s: %v", route, err)}
		case resp.StatusCode != http.StatusOK:
			msgs = []string{fmt.Sprintf("GET %s: status %d, want 200", route, resp.StatusCode)}
		case check != nil:
			msgs = check(route, resp, body)
		}
		return Problems(msgs)
	}
}

// Problems returns msgs as problems that are no seed flaw.
func Problems(msgs []string) []impl.RouteProblem {
	var out []impl.RouteProblem
	for _, msg := range msgs {
		out = append(out, impl.RouteProblem{Msg: msg})
	}
	return out
}

// CheckRoutes checks every route of an impl started on addr with check (nil: Answer(nil), status
// 200 alone), then asks a route no impl has, which must answer 404. It returns every problem.
func CheckRoutes(ctx context.Context, addr string, routes []string, check RouteCheck) []impl.RouteProblem {
	if check == nil {
		check = Answer(nil)
	}
	var problems []impl.RouteProblem
	for _, r := range routes {
		problems = append(problems, check(ctx, addr, r)...)
	}
	if resp, _, err := Get(ctx, addr, "/iobench-no-such-route"); err == nil && resp.StatusCode != http.StatusNotFound {
		problems = append(problems, impl.RouteProblem{Msg: fmt.Sprintf("GET /iobench-no-such-route: status %d, want 404", resp.StatusCode)})
	}
	return problems
}

// client asks each request on a new connection, so that one response framed wrong cannot spoil
// the next check (a workload looks at framing on its own: hello).
var client = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}

// Get asks GET path of addr on a new connection and returns the response (its body read and
// closed) and the body, up to 1 MiB.
func Get(ctx context.Context, addr, path string) (*http.Response, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+path, nil)
	if err != nil {
		return nil, "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp, string(b), err
}

// Clip returns s cut to 60 bytes, "..." marking the cut: a body quoted in a message.
func Clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}
