package fanout

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strings"

	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/sut"
	"github.com/iobench/iobench/internal/workload"
	"github.com/iobench/iobench/internal/workload/web"
)

var bodyRE = regexp.MustCompile(bodyPattern)

// verify starts an upstream in this process and each variant of inst against it, and checks
// the routes the manifest declares: 200 with the upstream's JSON, a Server-Timing app;dur,
// exactly one upstream call per request, and 404 for an unknown route (web.CheckRoutes).
func verify(ctx context.Context, v *workload.VerifyEnv, inst *impl.Installation) (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	up := &Upstream{Delay: DefaultDelay}
	defer up.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go web.Serve(ctx, ln, up)
	base := "http://" + ln.Addr().String() + "/"
	failures := 0
	for _, variant := range inst.Manifest.Variants {
		failures += verifyVariant(ctx, v, inst, variant, up, base)
	}
	return failures, nil
}

func verifyVariant(ctx context.Context, v *workload.VerifyEnv, inst *impl.Installation, variant impl.Variant, up *Upstream, base string) int {
	label := Name + " " + variant.Name
	addr, err := sut.FreeAddr()
	if err != nil {
		fmt.Fprintf(v.Out, "  FAIL %s: %v\n", label, err)
		return 1
	}
	p, err := inst.Start(ctx, impl.StartOptions{Variant: variant.Name, Env: map[string]string{
		env.Listen: addr, env.UpstreamURL: base, env.WorkMS: millis(DefaultWork)}})
	if err != nil {
		fmt.Fprintf(v.Out, "  FAIL %s: %s\n", label, oneLine(err.Error()))
		return 1
	}
	defer p.Stop()
	routes := inst.Manifest.Routes(Name)
	var problems []string
	for _, r := range web.CheckRoutes(ctx, addr, routes, web.Answer(checkJSON)) {
		problems = append(problems, r.String())
	}
	for _, route := range routes {
		if msg := checkRoute(ctx, addr, route, up); msg != "" {
			problems = append(problems, msg)
		}
	}
	for _, msg := range problems {
		fmt.Fprintf(v.Out, "  FAIL %s: %s\n", label, msg)
	}
	if len(problems) == 0 {
		fmt.Fprintf(v.Out, "  ok   %s: %d route(s) answer the upstream's JSON with Server-Timing, one upstream call each; unknown route 404\n", label, len(routes))
	}
	return len(problems)
}

// checkJSON returns what is wrong with a fanout route's answer of status 200 at a glance: its body
// must be JSON, the upstream's (checkRoute looks closer).
func checkJSON(route string, _ *http.Response, body string) []string {
	if t := strings.TrimSpace(body); !strings.HasPrefix(t, "{") && !strings.HasPrefix(t, "[") {
		return []string{fmt.Sprintf("GET %s: body %q, want the upstream's JSON", route, web.Clip(body))}
	}
	return nil
}

// checkRoute requests route once and returns what is wrong with its answer, or "".
func checkRoute(ctx context.Context, addr, route string, up *Upstream) string {
	before := up.Calls()
	resp, body, err := web.Get(ctx, addr, route)
	if err != nil {
		return fmt.Sprintf("GET %s: %v", route, err)
	}
	calls := up.Calls() - before
	st := resp.Header.Get(engine.TimingHeader)
	_, timed := engine.ServerTiming([]byte(st), Metric)
	switch {
	case resp.StatusCode != http.StatusOK:
		return "" // web.Answer says so
	case !bodyRE.MatchString(body):
		return fmt.Sprintf("GET %s: body %q, want the upstream's %s", route, web.Clip(body), UpstreamBody)
	case !timed:
		return fmt.Sprintf("GET %s: Server-Timing %q has no %s;dur=MS: every answer must carry its handling time, e.g. Server-Timing: app;dur=21.3", route, st, Metric)
	case calls != 1:
		return fmt.Sprintf("GET %s: the upstream counted %d calls for one request; each request must make exactly one", route, calls)
	}
	return ""
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
