package web

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/sut"
	"github.com/iobench/iobench/internal/workload"
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

// Routes is how verify checks the routes of an HTTP workload's impl (VerifyRoutes).
type Routes struct {
	Check RouteCheck        // each route's check
	Env   map[string]string // more environment than IOBENCH_LISTEN (the addresses of a store)
	More  MoreCheck         // more checked of each variant while it runs, nil for nothing
}

// MoreCheck checks a started variant listening on addr beyond its routes over HTTP/1.1 (hello:
// GET / over h2c): it returns what it checked ("" for nothing) and the problems it found.
type MoreCheck func(ctx context.Context, addr string, variant impl.Variant) (checked string, problems []impl.RouteProblem)

// VerifyRoutes starts each variant of inst on a free port, checks the routes it declares for
// workload w as rc says (CheckRoutes with rc.Check, then rc.More) and writes each problem, seed
// flaw reproduced or failure to v.Out; it returns the number of failures.
func VerifyRoutes(ctx context.Context, v *workload.VerifyEnv, inst *impl.Installation, w string, rc Routes) (int, error) {
	failures := 0
	for _, variant := range inst.Manifest.Variants {
		failures += verifyVariant(ctx, v, inst, w, variant, rc)
	}
	return failures, nil
}

func verifyVariant(ctx context.Context, v *workload.VerifyEnv, inst *impl.Installation, w string, variant impl.Variant, rc Routes) int {
	label := w + " " + variant.Name
	fail := func(err error) int {
		fmt.Fprintf(v.Out, "  FAIL %s: %s\n", label, oneLine(err.Error()))
		return 1
	}
	addr, err := sut.FreeAddr()
	if err != nil {
		return fail(err)
	}
	e := map[string]string{env.Listen: addr}
	for k, val := range rc.Env {
		e[k] = val
	}
	p, err := inst.Start(ctx, impl.StartOptions{Variant: variant.Name, Env: e})
	if err != nil {
		return fail(err)
	}
	routes := inst.Manifest.Routes(w)
	problems := CheckRoutes(ctx, addr, routes, rc.Check)
	checked := ""
	if rc.More != nil {
		var also []impl.RouteProblem
		checked, also = rc.More(ctx, addr, variant)
		problems = append(problems, also...)
	}
	verdict := impl.Judge(variant, problems)
	p.Stop()
	writeVerdict(v.Out, label, verdict, len(routes), checked)
	return len(verdict.Failures)
}

// writeVerdict writes a variant's verdict: each seed flaw reproduced, failure and flaw left to a
// run, else one ok line that says what more was checked.
func writeVerdict(out io.Writer, label string, verdict impl.Verdict, routes int, checked string) {
	for _, r := range verdict.Reproduced {
		fmt.Fprintf(out, "  flaw %s: seed flaw reproduced: %s\n", label, r)
	}
	for _, f := range verdict.Failures {
		fmt.Fprintf(out, "  FAIL %s: %s\n", label, f)
	}
	for _, id := range verdict.Unchecked {
		fmt.Fprintf(out, "  note %s: expected seed flaw %s shows only under load (iobench run)\n", label, id)
	}
	if len(verdict.Failures) == 0 && len(verdict.Reproduced) == 0 {
		if checked != "" {
			checked = "; " + checked + " answers too"
		}
		fmt.Fprintf(out, "  ok   %s: %d route(s) answer as docs/IMPLS.md, \"The HTTP routes\", says%s\n", label, routes, checked)
	}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
