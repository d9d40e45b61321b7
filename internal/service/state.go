package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// stateFile, in the state directory, records the instances `iobench services up` left running.
const stateFile = "services.json"

// record is one instance in the state file.
type record struct {
	Name    string    `json:"name"`
	URL     string    `json:"url"`
	Version string    `json:"version"`
	Dir     string    `json:"dir"`
	Procs   []*proc   `json:"procs"`
	Started time.Time `json:"started"`
}

// state is the state file's content.
type state struct {
	Version  int                `json:"version"`
	Services map[string]*record `json:"services"`
}

func (r *record) instance() *Instance {
	return &Instance{Name: r.Name, Kind: KindLocal, URL: r.URL, Version: r.Version, Dir: r.Dir, procs: r.Procs}
}

func stateDirOf(opts Options) string {
	if opts.StateDir != "" {
		return opts.StateDir
	}
	return DefaultStateDir()
}

// readState reads the state file; a missing file is an empty state. Writers replace the file by
// rename, so a reader never sees half of it.
func readState(dir string) (*state, error) {
	st := &state{Version: 1, Services: map[string]*record{}}
	b, err := os.ReadFile(filepath.Join(dir, stateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, st); err != nil {
		return nil, fmt.Errorf("%s: %w; remove it after stopping what it lists", filepath.Join(dir, stateFile), err)
	}
	if st.Services == nil {
		st.Services = map[string]*record{}
	}
	return st, nil
}

// updateState applies fn to the state file under an exclusive lock.
func updateState(dir string, fn func(*state)) error {
	unlock, err := lockFile(filepath.Join(dir, "services.lock"))
	if err != nil {
		return err
	}
	defer unlock()
	st, err := readState(dir)
	if err != nil {
		return err
	}
	fn(st)
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, stateFile+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, stateFile))
}

// lockFile takes an exclusive flock on path (created if needed) and returns its release.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	return func() { f.Close() }, nil // closing releases the lock
}

// Up starts name detached from this process (its own session, no parent-death signal) so that
// it outlives it, and records it in the state file for Ensure, Running and Down. When a recorded
// instance still answers, Up returns it and started is false. The returned Instance is not
// Owned: Down, not Stop, ends it. For "nats", opts.NATSCommand must be set.
func Up(ctx context.Context, name string, opts Options) (inst *Instance, started bool, err error) {
	if _, err := lookup(name); err != nil {
		return nil, false, err
	}
	dir, err := prepareStateDir(opts.StateDir)
	if err != nil {
		return nil, false, err
	}
	opts.StateDir = dir
	unlock, err := lockFile(filepath.Join(dir, name+".lock"))
	if err != nil {
		return nil, false, err
	}
	defer unlock()
	if inst, err := recorded(ctx, name, opts); err == nil && inst != nil {
		return inst, false, nil
	} else if err != nil {
		logger(opts.Logger).Warn("recorded instance does not answer; replacing it", "service", name, "err", err)
		if _, err := down(ctx, name, dir); err != nil {
			return nil, false, err
		}
	}
	inst, err = start(ctx, name, opts, true)
	if err != nil {
		return nil, false, err
	}
	inst.Owned = false
	err = updateState(dir, func(st *state) {
		st.Services[name] = &record{Name: name, URL: inst.URL, Version: inst.Version, Dir: inst.Dir, Procs: inst.procs, Started: time.Now().UTC()}
	})
	if err != nil {
		_ = stopProcs(ctx, name, inst.procs)
		return nil, false, fmt.Errorf("%s: recording it in %s: %w", name, dir, err)
	}
	return inst, true, nil
}

// Down stops the instance of name recorded by Up, waits until none of its processes is left,
// removes its directory and forgets it. It reports whether there was one.
func Down(ctx context.Context, name string, opts Options) (bool, error) {
	if _, err := lookup(name); err != nil {
		return false, err
	}
	dir := stateDirOf(opts)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	unlock, err := lockFile(filepath.Join(dir, name+".lock"))
	if err != nil {
		return false, err
	}
	defer unlock()
	return down(ctx, name, dir)
}

func down(ctx context.Context, name, dir string) (bool, error) {
	st, err := readState(dir)
	if err != nil {
		return false, err
	}
	rec := st.Services[name]
	if rec == nil {
		return false, nil
	}
	if err := stopProcs(ctx, name, rec.Procs); err != nil {
		return true, err
	}
	if rec.Dir != "" && strings.HasPrefix(rec.Dir, dir) {
		if err := os.RemoveAll(rec.Dir); err != nil {
			return true, fmt.Errorf("%s: stopped, but removing %s: %w", name, rec.Dir, err)
		}
	}
	return true, updateState(dir, func(st *state) { delete(st.Services, name) })
}

// recorded returns the instance of name that Up recorded, probed: nil, nil when none is recorded;
// an error when it does not answer.
func recorded(ctx context.Context, name string, opts Options) (*Instance, error) {
	st, err := readState(stateDirOf(opts))
	if err != nil {
		return nil, err
	}
	rec := st.Services[name]
	if rec == nil {
		return nil, nil
	}
	inst := rec.instance()
	for _, p := range inst.procs {
		if !p.alive() {
			return nil, fmt.Errorf("%s recorded in %s: process %d (%s) is gone", name, stateDirOf(opts), p.PID, p.Cmd)
		}
	}
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	v, err := specs[name].probe(pctx, inst.URL)
	if err != nil {
		return nil, fmt.Errorf("%s recorded in %s at %s does not answer: %v", name, stateDirOf(opts), inst.Redacted(), err)
	}
	inst.Version = v
	if port, err := strconv.Atoi(portOf(inst.URL)); err == nil {
		// Restart starts it again where it was: same directory, same port, detached.
		inst.launch = &launch{sp: specs[name], dir: inst.Dir, port: port, detached: true, log: logger(opts.Logger), opts: opts}
		inst.stateDir = stateDirOf(opts)
	}
	return inst, nil
}

// portOf returns the port of a service URL, or "" when it has none.
func portOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Port()
}

// Probe is what Running found for one service.
type Probe struct {
	Name     string
	Source   string    // "env IOBENCH_..." or "services up"
	Instance *Instance // the instance, also when it does not answer (then Err is set)
	Err      error
}

// Running returns, for each of names, what Ensure would use without starting anything: the
// instance named by its environment variable, else the one recorded by Up, each probed. Names
// with neither are left out.
func Running(ctx context.Context, names []string, opts Options) []Probe {
	var out []Probe
	for _, name := range names {
		sp, err := lookup(name)
		if err != nil {
			out = append(out, Probe{Name: name, Err: err})
			continue
		}
		if v := os.Getenv(sp.env); v != "" {
			inst, err := external(ctx, sp, v)
			if inst == nil {
				inst = &Instance{Name: name, Kind: KindExternal, URL: normalizeExternal(sp, v)}
			}
			out = append(out, Probe{Name: name, Source: "env " + sp.env, Instance: inst, Err: err})
			continue
		}
		st, err := readState(stateDirOf(opts))
		if err != nil {
			out = append(out, Probe{Name: name, Source: "services up", Err: err})
			continue
		}
		rec := st.Services[name]
		if rec == nil {
			continue
		}
		inst, err := recorded(ctx, name, opts)
		if inst == nil {
			inst = rec.instance()
		}
		out = append(out, Probe{Name: name, Source: "services up", Instance: inst, Err: err})
	}
	return out
}

// normalizeExternal turns the value of an environment variable into an instance URL: memcached's
// IOBENCH_MEMCACHED_ADDR is host:port.
func normalizeExternal(sp *spec, v string) string {
	v = strings.TrimSpace(v)
	if sp.name == "memcached" && !strings.Contains(v, "://") {
		return "memcached://" + v
	}
	return v
}

// external checks and probes an instance given in sp's environment variable.
func external(ctx context.Context, sp *spec, value string) (*Instance, error) {
	u := normalizeExternal(sp, value)
	pu, err := url.Parse(u)
	if err != nil || pu.Host == "" || !slices.Contains(sp.schemes, pu.Scheme) {
		return nil, fmt.Errorf("%s: %s=%s is not a URL like %s; fix or unset it", sp.name, sp.env, Redact(value), sp.example)
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	v, err := sp.probe(pctx, u)
	if err != nil {
		return nil, fmt.Errorf("%s: %s=%s does not answer (%s); start that server or unset %s", sp.name, sp.env, Redact(u), oneLine(err.Error()), sp.env)
	}
	return &Instance{Name: sp.name, Kind: KindExternal, URL: u, Version: v}, nil
}

// oneLine folds an error message onto one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
