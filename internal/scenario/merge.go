package scenario

import "fmt"

// Merge returns one suite called name holding the runs of every suite in order, so that several
// files run as one: the services they share started once, one results folder, one report. Each
// run keeps its file, scenario and verdict. Two scenarios of one name in different files would
// give their runs the same IDs, so they are refused with both places.
func Merge(name string, suites ...*Suite) (*Suite, error) {
	if len(suites) == 1 {
		return suites[0], nil
	}
	out := &Suite{Name: name}
	seen := map[string]*Scenario{}
	var errs Errors
	for _, s := range suites {
		for _, sc := range s.Scenarios {
			if first, dup := seen[sc.Name]; dup {
				errs = append(errs, &Error{File: sc.File, Line: sc.Line,
					Msg:  fmt.Sprintf("scenario name %q is also used in %s:%d", sc.Name, first.File, first.Line),
					Hint: "give the scenarios of files run together names of their own: they name the runs and their records"})
				continue
			}
			seen[sc.Name] = sc
			out.Scenarios = append(out.Scenarios, sc)
		}
		for _, r := range s.Runs {
			r.Index = len(out.Runs)
			out.Runs = append(out.Runs, r)
		}
	}
	if len(errs) > 0 {
		return nil, errs.sorted()
	}
	return out, nil
}
