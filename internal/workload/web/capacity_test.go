package web

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/fail"
	"github.com/iobench/iobench/internal/scenario"
)

// TestSearchSettings: load: max takes its SLOs, start rate and ceiling from the run, each step's
// window from the scenario's warmup and duration, and -c only when the scenario gives it.
func TestSearchSettings(t *testing.T) {
	r := scenario.Run{Warmup: time.Second, Duration: 3 * time.Second, Params: map[string]any{
		"load": Max, "slo": []string{"p99<10ms", "errors<0.1%"}, "start_rate": 500.0, "ceiling": 8000.0}}
	s, err := searchSettings(r, engine.Config{Connections: 10})
	if err != nil {
		t.Fatal(err)
	}
	if !IsMax(r) || len(s.SLOs) != 2 || s.StartRate != 500 || s.Ceiling != 8000 || s.StepDuration.Std() != 3*time.Second ||
		s.Warmup.Std() != time.Second || s.ConnectionsGiven {
		t.Errorf("settings %+v", s)
	}
	limit := s.MaxConnections              // the open-file limit's
	r.Params["max_connections"] = int64(9) // a server on stream_select would say 900
	if s, _ = searchSettings(r, engine.Config{Connections: 10}); limit < 9 || s.MaxConnections != 9 {
		t.Errorf("max_connections 9 under an open-file limit of %d: settings %+v", limit, s)
	}
	delete(r.Params, "max_connections")
	r.Params["connections"] = int64(10) // a default: still chosen by the search
	if s, _ = searchSettings(r, engine.Config{Connections: 10}); s.ConnectionsGiven {
		t.Errorf("connections by default: settings %+v", s)
	}
	r.Params["connections"], r.Given = int64(20), map[string]bool{"connections": true}
	if s, _ = searchSettings(r, engine.Config{Connections: 20}); !s.ConnectionsGiven || s.Connections != 20 {
		t.Errorf("connections given: settings %+v", s)
	}
}

// TestSearchSettingsBadInput: load: max without an SLO, or with a start above the ceiling, is the
// user's to fix, in one line.
func TestSearchSettingsBadInput(t *testing.T) {
	for name, params := range map[string]map[string]any{
		"needs the objectives": {"load": Max},
		"--ceiling":            {"load": Max, "slo": []string{"p99<10ms"}, "start_rate": 5000.0, "ceiling": 1000.0},
	} {
		_, err := searchSettings(scenario.Run{Duration: time.Second, Params: params}, engine.Config{})
		if !errors.Is(err, fail.ErrBadInput) || !strings.Contains(err.Error(), name) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: error %v, want bad input saying %q", params, err, name)
		}
	}
	closed := scenario.Run{Params: map[string]any{"load": "closed", "slo": []string{"p99<1ms"}}, Given: map[string]bool{"slo": true}}
	if err := searchOnly(closed); !errors.Is(err, fail.ErrBadInput) || !strings.Contains(err.Error(), "load: max") {
		t.Errorf("slo with load: closed: %v", err)
	}
	if err := sloText("p99<1ms"); err != nil {
		t.Error(err)
	}
	if err := sloText("p42"); err == nil || strings.Contains(err.Error(), "--slo") {
		t.Errorf("a bad SLO in a scenario: %v", err)
	}
}
