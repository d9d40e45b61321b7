package workload_test

import (
	"context"
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/workload"
)

// toySection is the manifest section of a workload defined in this test: its impls say how
// loud they greet, and iobench refuses a greeting they cannot make.
type toySection struct {
	impl.HTTP `yaml:",inline"`
	Greeting  struct {
		Word   string `yaml:"word"`
		Repeat int    `yaml:"repeat"`
	} `yaml:"greeting"`
}

func init() {
	workload.Register(workload.Workload{
		Name: "toy",
		Manifest: impl.NewSection("{routes: [PATH...], greeting: {word, repeat}}", func(_ *impl.Manifest, f string, s *toySection, add impl.ProblemFunc) {
			if s.Greeting.Repeat < 1 {
				add(f+".greeting.repeat", "not positive", "greet at least once")
			}
		}),
		Run: func(context.Context, *workload.Env, scenario.Run) (*result.Record, error) { return nil, nil },
	})
}

const toyManifest = `name: go-toy
language: go
differs: []
variants: [{name: a, mode: sync}]
start: {command: [iobench, serve, toy]}
ready: {tcp: listen}
workloads:
  toy:
`

// TestWorkloadOwnsItsSection: a workload registered outside impl declares its manifest section
// (keys, types, rules, help) and reads it back typed; impl names none of it.
func TestWorkloadOwnsItsSection(t *testing.T) {
	m, err := impl.Parse([]byte(toyManifest+"    routes: [/]\n    greeting: {word: hi, repeat: 2}\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := impl.SectionOf[toySection](m, "toy"); !ok || s.Greeting.Word != "hi" || s.Greeting.Repeat != 2 || s.Routes[0] != "/" {
		t.Fatalf("section %+v %v", s, ok)
	}
	_, err = impl.Parse([]byte(toyManifest+"    greeting: {word: hi, repeat: none, volume: 11}\n    queues: [q]\n"), "")
	for _, want := range []string{
		"workloads.toy.greeting.volume: unknown key (known keys here: repeat, word)",
		"workloads.toy.queues: unknown key (known keys here: greeting, routes)",
		"line 9: cannot unmarshal !!str `none` into int",
		"workloads.toy.greeting.repeat: not positive (greet at least once)",
		"workloads.toy.routes: missing",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	if got := strings.Join(impl.SectionKeys("toy"), " "); got != "greeting greeting.repeat greeting.word routes" {
		t.Errorf("keys %q", got)
	}
}
