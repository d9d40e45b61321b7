package suite

import (
	"context"

	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/workload"
)

// installed is an impl installed once per suite, or why it could not be.
type installed struct {
	inst *impl.Installation
	err  error
}

// target resolves the impl a run names (NAME or NAME:VARIANT), installing it on first use, and
// picks its variant (workload.Pick): a run with a mode parameter (bus) takes the impl's first
// variant of that mode, any other run the impl's first variant; a named variant must agree with
// the mode parameter.
func (st *state) target(ctx context.Context, r scenario.Run) (workload.Target, error) {
	name, vname := impl.ParseRef(r.Impl)
	inst, err := st.install(ctx, name)
	if err != nil {
		return workload.Target{}, err
	}
	mode, _ := r.Params["mode"].(string)
	return workload.Pick(inst, vname, mode)
}

// install finds, installs and checks the impl called name, once per suite.
func (st *state) install(ctx context.Context, name string) (*impl.Installation, error) {
	if got, ok := st.installs[name]; ok {
		return got.inst, got.err
	}
	if st.opts.OnInstall != nil {
		st.opts.OnInstall(name)
	}
	inst, err := st.installNow(ctx, name)
	st.installs[name] = installed{inst, err}
	return inst, err
}

func (st *state) installNow(ctx context.Context, name string) (*impl.Installation, error) {
	root := st.opts.Impls
	if root == "" {
		root = impl.DefaultRoot()
	}
	m, err := impl.Find(root, name)
	if err != nil {
		return nil, err
	}
	inst, err := impl.Install(ctx, m, impl.InstallOptions{StateDir: st.opts.StateDir, Executable: st.opts.Binary})
	if err != nil {
		return nil, err
	}
	if err := inst.Check(ctx); err != nil {
		return nil, err
	}
	return inst, nil
}
