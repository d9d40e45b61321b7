package impl

// The workloads register their manifest sections from their own packages, which import this
// one, so these tests register stand-ins with the same shape: hello, fanout and cachequeue serve
// routes, cachequeue takes consumers (checked by its package's own tests), bus names queues and
// takes a topology (checked by the bus package's own tests), and
// publish takes per-variant settings, here checked for a count only (the publish package's own
// tests check all its rules).
func init() {
	RegisterSection("hello", Section{Routes: true})
	RegisterSection("fanout", Section{Routes: true})
	RegisterSection("cachequeue", Section{Routes: true, Consumers: func(*Manifest, string, Workload, func(field, msg, hint string)) {}})
	RegisterSection("bus", Section{Queues: true, Topology: func(*Manifest, string, Workload, func(field, msg, hint string)) {}})
	RegisterSection("publish", Section{Variants: func(_ *Manifest, f string, w Workload, add func(field, msg, hint string)) {
		for name, s := range w.Variants {
			if s.Count <= 0 {
				add(f+".variants."+name+".count", "not positive", "give a count")
			}
		}
	}})
}
