package workload

import (
	"fmt"

	"github.com/iobench/iobench/internal/impl"
)

// Pick is the one variant picker of a run's impl: inst's variant called name; without a name, its
// first of mode (its first when mode is ""). A named variant must be of mode when both are given.
// Errors are one line naming the variants there are.
func Pick(inst *impl.Installation, name, mode string) (Target, error) {
	m := inst.Manifest
	if name == "" && mode != "" {
		for _, v := range m.Variants {
			if v.Mode == mode {
				return Target{Inst: inst, Variant: v}, nil
			}
		}
		return Target{}, fmt.Errorf("impl %s has no %s variant; drop mode: %s or choose from %s", m.Name, mode, mode, m.VariantsText())
	}
	v, ok := m.Variant(name)
	if !ok {
		return Target{}, m.UnknownVariant(name)
	}
	if mode != "" && v.Mode != mode {
		return Target{}, fmt.Errorf("impl %s: variant %s is %s but the run asks for mode %s; drop one of them", m.Name, v.Name, v.Mode, mode)
	}
	return Target{Inst: inst, Variant: v}, nil
}
