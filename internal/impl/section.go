package impl

import (
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
)

// ProblemFunc records one problem of a manifest: the field (e.g. "workloads.bus.queues"), what is
// wrong and what to do.
type ProblemFunc = func(field, msg, hint string)

// Section is what a workload registers for the manifest section (workloads.NAME) of the impls that
// declare it: the Go type the section decodes into, whose yaml tags are the only keys it takes,
// the workload's own checks, and a line of help. Each workload registers its own (workload.Register
// does), so that this package names none of their keys. NewSection makes one.
type Section struct {
	typ   reflect.Type // a struct type; nil takes no keys
	check func(m *Manifest, field string, section any, add ProblemFunc)
	// Help is the section's keys for `iobench impls`, e.g. "{routes: [PATH...]}".
	Help string
}

// NewSection returns the Section of a workload whose manifest section decodes into a T (a struct
// with yaml tags), checked by check once decoded (nil: no checks beyond keys and types). A T that
// embeds HTTP (yaml:",inline") is an HTTP workload's: its routes are required and checked here.
// field is the section's path ("workloads.NAME") for the problems check adds.
func NewSection[T any](help string, check func(m *Manifest, field string, s *T, add ProblemFunc)) Section {
	s := Section{typ: reflect.TypeFor[T](), Help: help}
	if check != nil {
		s.check = func(m *Manifest, field string, v any, add ProblemFunc) { check(m, field, v.(*T), add) }
	}
	return s
}

// HTTPSection is the section of an HTTP workload that takes nothing but its routes.
var HTTPSection = NewSection[HTTP]("{routes: [PATH...]}", nil)

// HTTP is the part of a workload's section that an impl serving HTTP declares: the routes it
// serves (docs/IMPLS.md, "The HTTP routes"). A section type embeds it with yaml:",inline".
type HTTP struct {
	Routes []string `yaml:"routes"`
}

// routes makes a section that embeds HTTP a router.
func (h *HTTP) routes() []string { return h.Routes }

// router is a decoded section that embeds HTTP.
type router interface{ routes() []string }

var sections = map[string]Section{}

// RegisterSection makes workload one that manifests may declare, with its section's type and
// rules.
func RegisterSection(workload string, s Section) { sections[workload] = s }

// SectionOf returns the section m declares for workload, decoded into the T its Section was made
// with, and true; a new zero T and false when m does not declare the workload (or not as a T).
func SectionOf[T any](m *Manifest, workload string) (*T, bool) {
	if s, ok := m.Workloads[workload].(*T); ok && s != nil {
		return s, true
	}
	return new(T), false
}

// Routes returns the routes m's impl serves for an HTTP workload; nil when it declares no such
// workload.
func (m *Manifest) Routes(workload string) []string {
	if r, ok := m.Workloads[workload].(router); ok {
		return r.routes()
	}
	return nil
}

// new returns a pointer to a zero section, for decoding.
func (s Section) new() any {
	if s.typ == nil {
		return &struct{}{}
	}
	return reflect.New(s.typ).Interface()
}

// serves says whether the section is an HTTP workload's (its type embeds HTTP).
func (s Section) serves() bool {
	return s.typ != nil && reflect.PointerTo(s.typ).Implements(reflect.TypeFor[router]())
}

// schema returns the keys the section takes.
func (s Section) schema() any {
	if s.typ == nil {
		return fields{}
	}
	return schemaOf(s.typ)
}

// SectionHelp returns the help of workload's section (its Help, else its keys), "" for a workload
// not registered.
func SectionHelp(workload string) string {
	s, ok := sections[workload]
	if !ok {
		return ""
	}
	if s.Help != "" {
		return s.Help
	}
	return "{" + strings.Join(SectionKeys(workload), ", ") + "}"
}

// SectionKeys returns every key workload's section takes, nested ones as "exchange.name", sorted.
func SectionKeys(workload string) []string {
	s, ok := sections[workload]
	if !ok {
		return nil
	}
	var out []string
	var walk func(prefix string, n any)
	walk = func(prefix string, n any) {
		switch n := n.(type) {
		case fields:
			for _, k := range sortedKeys(n) {
				out = append(out, prefix+k)
				walk(prefix+k+".", n[k])
			}
		case mapOf:
			walk(prefix, n.elem)
		case listOf:
			walk(prefix, n.elem)
		}
	}
	walk("", s.schema())
	sort.Strings(out)
	return out
}

// httpWorkloads returns the registered workloads whose impls serve HTTP, sorted.
func httpWorkloads() []string {
	var out []string
	for _, w := range Workloads() {
		if sections[w].serves() {
			out = append(out, w)
		}
	}
	return out
}

// Workloads returns the workloads a manifest may declare (those registered), sorted.
func Workloads() []string { return slices.Sorted(maps.Keys(sections)) }
