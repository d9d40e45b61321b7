package impl

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// CheckRoutes requests every route of an HTTP workload from a started impl listening on addr
// and checks the answers against DESIGN §5.3: status 200, `Hello world!` for GET /, a counter
// and a newline for /cache/{driver}, an empty body for /queue/{driver}, a JSON body for /sync,
// /async and /async-overlap; and an unknown route must answer 404. It returns every problem.
func CheckRoutes(ctx context.Context, addr string, routes []string) []string {
	client := &http.Client{Timeout: 10 * time.Second}
	var problems []string
	get := func(path string) (int, string, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+path, nil)
		if err != nil {
			return 0, "", err
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return resp.StatusCode, string(b), err
	}
	for _, r := range routes {
		code, body, err := get(r)
		if err != nil {
			problems = append(problems, fmt.Sprintf("GET %s: %v", r, err))
			continue
		}
		if code != http.StatusOK {
			problems = append(problems, fmt.Sprintf("GET %s: status %d, want 200", r, code))
			continue
		}
		switch {
		case r == "/":
			if body != "Hello world!" {
				problems = append(problems, fmt.Sprintf("GET /: body %q, want %q", trim(body), "Hello world!"))
			}
		case strings.HasPrefix(r, "/cache/"):
			if !strings.HasSuffix(body, "\n") || strings.TrimSpace(body) == "" {
				problems = append(problems, fmt.Sprintf("GET %s: body %q, want the counter's value and a newline", r, trim(body)))
			}
		case strings.HasPrefix(r, "/queue/"):
			if body != "" {
				problems = append(problems, fmt.Sprintf("GET %s: body %q, want an empty body", r, trim(body)))
			}
		case r == "/sync" || r == "/async" || r == "/async-overlap":
			if t := strings.TrimSpace(body); !strings.HasPrefix(t, "{") && !strings.HasPrefix(t, "[") {
				problems = append(problems, fmt.Sprintf("GET %s: body %q, want the upstream's JSON", r, trim(body)))
			}
		}
	}
	if code, _, err := get("/iobench-no-such-route"); err == nil && code != http.StatusNotFound {
		problems = append(problems, fmt.Sprintf("GET /iobench-no-such-route: status %d, want 404", code))
	}
	return problems
}

func trim(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}
