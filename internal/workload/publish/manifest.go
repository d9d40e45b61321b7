package publish

import (
	"fmt"
	"sort"
	"strings"

	"github.com/iobench/iobench/internal/impl"
)

// Manifest is what a publisher impl's manifest declares under workloads.publish: the settings of
// each of its variants (queue, count, concurrency, persistence, confirms), by variant name.
type Manifest struct {
	Variants map[string]Settings `yaml:"variants"`
}

// Settings are one variant's publish settings: how iobench prepares the queue and counts at the
// broker, and what it hands the impl (IOBENCH_QUEUE, IOBENCH_COUNT, ...).
type Settings struct {
	Queue        string `yaml:"queue"`         // queue name (the seed's)
	QueueDurable bool   `yaml:"queue_durable"` // declare the queue durable
	Persistent   bool   `yaml:"persistent"`    // delivery mode 2
	Confirm      bool   `yaml:"confirm"`       // publisher confirms
	Concurrency  int    `yaml:"concurrency"`   // threads, processes or tasks; 0 = 1
	Count        int    `yaml:"count"`         // messages, the seed's count
	// ConnectAfterGo declares that the impl prints "ready" before it connects and connects once
	// told to go, as a seed's code that started its clock before connecting did: its connects
	// then fall inside its own timing and the broker-accepted window.
	ConnectAfterGo bool `yaml:"connect_after_go"`
	// ImprovesOn names the seed-faithful variant of the same impl that this one does better
	// than (connecting before the clock, building messages without allocating): the report sets
	// the two side by side, as what the seed's code left on the table.
	ImprovesOn string `yaml:"improves_on"`
}

// section is publish's manifest section, registered with the workload.
var section = impl.NewSection("{variants: {VARIANT: {queue, queue_durable, persistent, confirm, concurrency, count, connect_after_go, improves_on}}}", checkSettings)

// ManifestOf returns the publish section m declares (a zero one when it declares none).
func ManifestOf(m *impl.Manifest) *Manifest {
	s, _ := impl.SectionOf[Manifest](m, Name)
	return s
}

// checkSettings checks that every variant has publish settings, every settings entry names a
// variant, and each entry is complete.
func checkSettings(m *impl.Manifest, f string, w *Manifest, add impl.ProblemFunc) {
	declared := map[string]bool{}
	for _, v := range m.Variants {
		declared[v.Name] = true
		if _, ok := w.Variants[v.Name]; !ok && v.Name != "" {
			add(f+".variants", fmt.Sprintf("variant %q has no publish settings", v.Name),
				fmt.Sprintf("add %s.variants.%s: {queue: ..., count: ...}", f, v.Name))
		}
	}
	names := make([]string, 0, len(w.Variants))
	for name := range w.Variants {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		s, vf := w.Variants[name], f+".variants."+name
		if !declared[name] {
			add(vf, "not a declared variant", "declare it under variants: or fix the name ("+strings.Join(m.VariantNames(), ", ")+")")
		}
		if s.Queue == "" {
			add(vf+".queue", "missing", "name the queue the variant publishes to (the seed's)")
		}
		if s.Count <= 0 {
			add(vf+".count", fmt.Sprintf("%d", s.Count), "give the seed's message count, a positive number")
		}
		if s.Concurrency < 0 {
			add(vf+".concurrency", fmt.Sprintf("%d", s.Concurrency), "use 0 or 1 for one, or the number of threads/processes/tasks")
		}
		if s.ImprovesOn != "" && (!declared[s.ImprovesOn] || s.ImprovesOn == name) {
			add(vf+".improves_on", fmt.Sprintf("%q is not another declared variant", s.ImprovesOn), "name the seed-faithful variant this one improves on ("+strings.Join(m.VariantNames(), ", ")+")")
		}
		if s.Persistent && !s.QueueDurable {
			add(vf+".persistent", "persistent messages in a non-durable queue do not survive a restart", "set queue_durable: true")
		}
	}
}

// settings returns the named variant of m (the first for "") with its publish settings, or
// false when m has no such variant or does not implement publish.
func settings(m *impl.Manifest, variant string) (impl.Variant, Settings, bool) {
	v, ok := m.Variant(variant)
	if !ok {
		return impl.Variant{}, Settings{}, false
	}
	s, ok := ManifestOf(m).Variants[v.Name]
	return v, s, ok
}
