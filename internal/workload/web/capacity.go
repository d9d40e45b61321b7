package web

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/iobench/iobench/internal/capacity"
	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/fail"
	"github.com/iobench/iobench/internal/httpbench"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
)

// Max is the load of a capacity search: `load: max` with `slo: [...]` runs iobench http
// --find-max on the run's impl, started once for the whole search; the scenario's warmup and
// duration are each step's.
const Max = "max"

// searchParams adds the parameters of `load: max` to an HTTP workload's.
func searchParams(p map[string]scenario.ParamSpec) {
	d := capacity.Defaults()
	p["slo"] = scenario.ParamSpec{Type: scenario.Strings, Check: sloText,
		Doc: `load: max: the objectives that must all hold, e.g. ["p99<20ms", "errors<0.1%"] (a list means all of them, not a sweep)`}
	p["start_rate"] = scenario.ParamSpec{Type: scenario.Float, Check: scenario.Positive,
		Doc: fmt.Sprintf("load: max: the first step's rate, req/s (%g if unset)", d.StartRate)}
	p["ceiling"] = scenario.ParamSpec{Type: scenario.Float, Check: scenario.Positive,
		Doc: fmt.Sprintf("load: max: the highest rate to try, req/s (%g if unset)", d.Ceiling)}
	p["max_connections"] = scenario.ParamSpec{Type: scenario.Int, Check: scenario.Positive,
		Doc: "load: max: the most connections a step may open when connections is unset (the open-file limit if unset; lower for a server that cannot take more, e.g. one on stream_select)"}
}

func sloText(v any) error {
	s, _ := v.(string)
	if _, err := capacity.ParseSLO(s); err != nil {
		return fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "--slo "))
	}
	return nil
}

// searchOnly refuses the parameters of load: max in a run of another load.
func searchOnly(r scenario.Run) error {
	for _, name := range []string{"slo", "start_rate", "ceiling", "max_connections"} {
		if r.Given[name] {
			return fmt.Errorf("%w: %s is a setting of load: max; add load: max or drop it", fail.ErrBadInput, name)
		}
	}
	return nil
}

// IsMax reports whether r is a capacity search (load: max).
func IsMax(r scenario.Run) bool {
	load, _ := r.Params["load"].(string)
	return load == Max
}

// searchSettings are the search's settings of run r: its SLOs, start rate and ceiling, the
// scenario's warmup and duration for each step, -c when the scenario sets connections itself.
func searchSettings(r scenario.Run, cfg engine.Config) (capacity.Settings, error) {
	s := capacity.Defaults()
	texts, _ := r.Params["slo"].([]string)
	if len(texts) == 0 {
		return s, fmt.Errorf("%w: load: max needs the objectives to hold, e.g. slo: [\"p99<20ms\"]", fail.ErrBadInput)
	}
	for _, t := range texts {
		o, err := capacity.ParseSLO(t)
		if err != nil {
			return s, fmt.Errorf("%w: %v", fail.ErrBadInput, err)
		}
		s.SLOs = append(s.SLOs, o)
	}
	if v, ok := r.Params["start_rate"].(float64); ok {
		s.StartRate = v
	}
	if v, ok := r.Params["ceiling"].(float64); ok {
		s.Ceiling = v
	}
	s.StepDuration, s.Warmup = result.Duration(r.Duration), result.Duration(r.Warmup)
	if r.Given["connections"] { // a workload's default (fanout's 10, ab's) is not the user's -c
		s.Connections, s.ConnectionsGiven = cfg.Connections, true
	} else {
		s.MaxConnections = httpbench.MaxConnections()
		if v, ok := r.Params["max_connections"].(int64); ok {
			s.MaxConnections = min(s.MaxConnections, int(v))
		}
	}
	if err := s.Validate(); err != nil {
		return s, fmt.Errorf("%w: %v", fail.ErrBadInput, err)
	}
	return s, nil
}

// search runs r's capacity search with cfg: a line per step to progress (nil for none), the
// record of the step at the answer with the search in its capacity section (httpbench.FindMax).
func search(ctx context.Context, r scenario.Run, cfg engine.Config, m httpbench.Meta, progress io.Writer) (*result.Record, error) {
	s, err := searchSettings(r, cfg)
	if err != nil {
		return nil, err
	}
	if !s.ConnectionsGiven {
		cfg.Connections = capacity.DefaultConnections(s.StartRate, s.SLOs)
	}
	if v, _ := r.Params["arrivals"].(string); v == engine.ArrivalsPoisson { // each step an open loop of them
		cfg.Arrivals, cfg.Seed = v, httpbench.NewSeed()
	}
	step := func(st capacity.StepRecord) {
		if progress != nil {
			fmt.Fprintf(progress, "\r\033[K  %s\n", capacity.Progress(st))
		}
	}
	rec, err := httpbench.FindMax(ctx, cfg, s, m, step)
	if err == nil && rec == nil {
		err = ctx.Err()
	}
	return rec, err
}

// capacityText writes a capacity record's text block, and reports whether rec is one: what was
// searched, every step, and the search's one line. (The wrk-style block of the step at the
// answer would show one step as if it were the run.)
func capacityText(w io.Writer, rec *result.Record) bool {
	sec := capacity.Section(rec)
	if sec == nil {
		return false
	}
	conns := "connections by Little's law"
	if sec.Search.ConnectionsGiven {
		conns = fmt.Sprintf("%d connections", sec.Search.Connections)
	}
	fmt.Fprintf(w, "Capacity search @ %s within %s: open-loop steps of %s after %s of warm-up, %s\n",
		rec.Target, strings.Join(sec.SLO, ", "), sec.Search.StepDuration.Std(), sec.Search.Warmup.Std(), conns)
	for _, st := range sec.Steps {
		fmt.Fprintf(w, "  %s\n", capacity.Progress(st))
	}
	fmt.Fprintln(w, sec.Line())
	return true
}
