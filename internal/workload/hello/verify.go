package hello

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/workload/web"
)

// checkProtocol is verify's check of a started variant of m beyond its routes over HTTP/1.1:
// GET / over h2c for a variant that declares it (ProtocolOf), nothing for the others.
func checkProtocol(m *impl.Manifest) web.MoreCheck {
	return func(ctx context.Context, addr string, v impl.Variant) (string, []impl.RouteProblem) {
		if ProtocolOf(m, v.Name) != ProtocolH2C {
			return "", nil
		}
		var problems []impl.RouteProblem
		for _, msg := range checkH2C(ctx, addr) {
			problems = append(problems, impl.RouteProblem{Msg: "GET / over h2c: " + msg})
		}
		return "GET / over h2c", problems
	}
}

// checkH2C asks GET / of addr over HTTP/2 with prior knowledge and returns what is wrong with the
// answer: not HTTP/2, a status other than 200, a body other than Body.
func checkH2C(ctx context.Context, addr string) []string {
	tr := &http.Transport{Protocols: new(http.Protocols)}
	tr.Protocols.SetUnencryptedHTTP2(true)
	defer tr.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/", nil)
	if err != nil {
		return []string{err.Error()}
	}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		return []string{fmt.Sprintf("%v (does the variant speak h2c with prior knowledge?)", err)}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	var out []string
	switch {
	case err != nil:
		out = append(out, fmt.Sprintf("reading the body: %v", err))
	case string(body) != Body:
		out = append(out, fmt.Sprintf("body %q, want %q", body, Body))
	}
	if resp.ProtoMajor != 2 {
		out = append(out, fmt.Sprintf("answered over %s, want HTTP/2", resp.Proto))
	}
	if resp.StatusCode != http.StatusOK {
		out = append(out, fmt.Sprintf("status %d, want 200", resp.StatusCode))
	}
	return out
}
