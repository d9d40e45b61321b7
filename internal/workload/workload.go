// Package workload is the contract every workload fulfils and the registry it joins. A workload
// is one package under internal/workload/ that calls Register from an init function; the
// executable imports it once (cmd/iobench/workloads.go). The scenario parser (Known), the suite
// (Run), `iobench verify` (Verify), `iobench report` (Text) and the executable's command tree
// (Commands, ServeCommands) iterate the registry, so no code outside a workload's package names it.
package workload

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sort"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/service"
)

// Workload is what a workload package registers.
type Workload struct {
	// Name is the workload's id: in scenarios (workload: NAME), impl manifests (workloads:) and
	// records.
	Name string
	// Spec gives the scenario parameters (typed, with defaults and checks), the services by role
	// and the timing. Its Impls is filled by Known from the impls found.
	Spec scenario.WorkloadSpec
	// AnyImpl says a scenario's impls are labels, not impls from impls/ (http measures any URL).
	AnyImpl bool
	// Manifest is the workload's manifest section (workloads.NAME in the impls that declare
	// it): its type, rules and help (impl.NewSection).
	Manifest impl.Section
	// Run measures one scenario run in a suite and returns its record; a record with an error is
	// a run that measured but failed verification.
	Run func(ctx context.Context, env *Env, r scenario.Run) (*result.Record, error)
	// Verify checks an impl against the workload's contract for `iobench verify`, writing one
	// line per check to v.Out, and returns how many failed; nil means verify has no checks yet.
	Verify func(ctx context.Context, v *VerifyEnv, inst *impl.Installation) (failures int, err error)
	// Text writes a record's text block (iobench run, iobench report); nil means the record has
	// only its line in the summary.
	Text func(w io.Writer, rec *result.Record) error
	// Verified is the workload's own check of a record (the bus: every command and event
	// accounted for; cachequeue: the store's count; fanout: one upstream call per response;
	// publish: what the broker accepted), with what failed in one line; nil means the workload
	// has no check beyond Verification's own. Verification calls it.
	Verified func(rec *result.Record) (ok bool, why string)
	// Flaw says whether rec shows the signature of the seed flaw finding (an impl.Findings id)
	// that its variant expects, or why not; nil means the workload recognises no flaw, so no run
	// of it passes as a flaw reproduced. FlawReproduced calls it.
	Flaw func(rec *result.Record, finding string) (ok bool, why string)
	// FlawCounts fills what the workload's records counted into a seed's flaw text (hello: the
	// connections its runs turned away, for {turned_away}); recs are the section's records of this
	// workload, maybe none. nil leaves the text as written. FillFlaw calls it.
	FlawCounts func(text string, recs []*result.Record) string
	// Phases returns the phases a record's page lists (the bus: fill, commands, events).
	Phases func(rec *result.Record) []result.Phase
	// Series names the per-second values (result.Point.Values) the report charts instead of
	// completed operations, in order, in SeriesUnit; a name ending in "depth" goes on the right
	// axis.
	Series     []string
	SeriesUnit string
	// Figures are the workload's own figures a seed's verdict may compare (the bus: each phase's
	// mean rate and its best 5-second window; publish: the client write rate), by name, beside
	// the common ones (Figure).
	Figures map[string]FigureFunc
	// Tables are the workload's own tables in the report (Tables).
	Tables []TableFunc
	// Roles are the services the workload's runs need, by the scenario's role name (services:),
	// so that a suite can skip, before any run, the runs whose local server is not installed.
	Roles map[string]service.Role
	// Command builds the workload's own top-level command (`iobench fanout`), a one-run adapter
	// over its Run; nil for none. The executable adds it to its root (Commands).
	Command func() *cobra.Command
	// Serve builds the `iobench serve NAME` commands of the workload's Go systems under test,
	// which its Go impls' manifests start (fanout: fanout and its upstream); nil for none
	// (ServeCommands).
	Serve []func() *cobra.Command
}

// Env is what a suite gives the runs of a workload.
type Env struct {
	// Target resolves the run's impl (NAME or NAME:VARIANT), installed and checked once per suite.
	Target func(ctx context.Context, r scenario.Run) (Target, error)
	// Record returns the record of a run of this suite that has ended, by id; nil if none.
	Record func(id string) *result.Record
	// Suite is the suite being run (a run can look up its peers).
	Suite *scenario.Suite
	// Share returns what open made for key earlier in this suite, or calls it now; what open
	// returns to close runs when the suite ends. Runs share services this way.
	Share func(key string, open func() (value any, close func(), err error)) (any, error)
	// Command is recorded in every result.
	Command []string
	// OnSecond receives live figures of runs that have them.
	OnSecond func(engine.Snapshot)
	// Progress receives a live line of runs that write one; nil for none.
	Progress io.Writer
}

// VerifyEnv is what `iobench verify` gives a workload's checks.
type VerifyEnv struct {
	Out   io.Writer
	Count int // how many operations a check may send
	Log   *slog.Logger
	// Command is the command line, recorded where a check writes a record.
	Command []string
	// BrokerURL opens (or finds) the message broker a check needs; close stops what it started.
	BrokerURL func(ctx context.Context) (url string, close func(), err error)
}

// Target is the system under test of one run: an installed impl and the variant it runs.
type Target struct {
	Inst    *impl.Installation
	Variant impl.Variant
}

// Name returns the impl's name, as records show it.
func (t Target) Name() string { return t.Inst.Manifest.Name }

// Label records what ran: the impl, its variant and mode, the seed flaws it expects, the seed's
// system it stands in for (the variant's, else the impl's) and how the impl differs from it.
func (t Target) Label(rec *result.Record) {
	rec.Impl, rec.Variant, rec.Mode, rec.Expect = t.Name(), t.Variant.Name, t.Variant.Mode, t.Variant.Expect
	rec.StandsIn = t.Variant.StandsInFor
	if rec.StandsIn == "" {
		rec.StandsIn = t.Inst.Manifest.StandsInFor
	}
	rec.Differs = t.Inst.Manifest.Differs
	if d := t.Inst.Manifest.Dir; d != "" {
		rec.Environment.Impls = impl.RootName(filepath.Dir(filepath.Dir(d)))
	}
}

var registry = map[string]Workload{}

// Register adds w to the registry. It panics on a second workload of the same name or one
// without a Run: both are mistakes in the program, found by its first start.
func Register(w Workload) {
	if _, dup := registry[w.Name]; dup || w.Name == "" || w.Run == nil {
		panic(fmt.Sprintf("workload: Register(%q): empty name, no Run, or registered twice", w.Name))
	}
	registry[w.Name] = w
	if !w.AnyImpl {
		impl.RegisterSection(w.Name, w.Manifest)
	}
}

// Lookup returns the registered workload called name.
func Lookup(name string) (Workload, bool) {
	w, ok := registry[name]
	return w, ok
}

// Names returns the registered workloads' names, sorted.
func Names() []string {
	out := make([]string, 0, len(registry))
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Known returns the scenario registry of the registered workloads. impls gives, for each
// workload, the impl references a scenario may name (impl.WorkloadRefs of the manifests found);
// a workload that no impl declares accepts none, one with AnyImpl accepts any name.
func Known(impls map[string][]string) scenario.Known {
	k := scenario.Known{Workloads: map[string]scenario.WorkloadSpec{}}
	for name, w := range registry {
		spec := w.Spec
		spec.Impls = nil
		spec.Figures = figureNames(w)
		if !w.AnyImpl {
			spec.Impls = append([]string{}, impls[name]...) // never nil: nil accepts any name
		}
		k.Workloads[name] = spec
	}
	return k
}

// MissingService returns, for a run of a registered workload, the first of its services that
// its scenario asks iobench to start from binaries that are not installed (service.Role.Missing);
// nil when it needs none.
func MissingService(r scenario.Run) error {
	w, ok := registry[r.Workload]
	if !ok {
		return nil
	}
	for _, name := range sortedRoles(w.Roles) {
		if err := w.Roles[name].Missing(Choice(r.Services[name])); err != nil {
			return err
		}
	}
	return nil
}

func sortedRoles(m map[string]service.Role) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Text writes rec's text block with its workload's Text; false when it has none.
func Text(w io.Writer, rec *result.Record) (bool, error) {
	wl, ok := registry[rec.Workload]
	if !ok || wl.Text == nil {
		return false, nil
	}
	return true, wl.Text(w, rec)
}

// Choice is how a scenario's service entry asks for a role to be filled (service.Resolve):
// auto, embedded, local, or an external URL.
func Choice(s scenario.Service) service.Choice {
	switch s.Kind {
	case scenario.ServiceEmbedded:
		return service.Choice{Kind: service.KindEmbedded}
	case scenario.ServiceLocal:
		return service.Choice{Kind: service.KindLocal}
	case scenario.ServiceExternal:
		return service.Choice{Kind: service.KindExternal, URL: s.URL}
	}
	return service.Choice{}
}

// Single returns the Env of a suite of one run, for a workload's own command (iobench fanout,
// iobench cachequeue): the target is given, there are no peers, and what the run shares is closed
// by the returned function.
func Single(target Target, r scenario.Run, command []string, onSecond func(engine.Snapshot)) (*Env, func()) {
	var closers []func()
	shared := map[string]any{}
	e := &Env{
		Target:   func(context.Context, scenario.Run) (Target, error) { return target, nil },
		Record:   func(string) *result.Record { return nil },
		Suite:    &scenario.Suite{Runs: []scenario.Run{r}},
		Command:  command,
		OnSecond: onSecond,
		Share: func(key string, open func() (any, func(), error)) (any, error) {
			if v, ok := shared[key]; ok {
				return v, nil
			}
			v, closeFn, err := open()
			if err != nil {
				return nil, err
			}
			shared[key] = v
			if closeFn != nil {
				closers = append(closers, closeFn)
			}
			return v, nil
		},
	}
	return e, func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
}
