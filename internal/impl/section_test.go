package impl

import (
	"strings"
	"testing"
)

// The workloads register their manifest sections from their own packages, which import this
// one, so these tests register stand-ins of the same shape: hello and fanout serve routes,
// cachequeue serves routes and takes consumers (checked by its package's own tests), bus names
// queues, and publish takes per-variant settings, here checked for a count only (the publish
// package's own tests check all its rules).
type (
	standInCachequeue struct {
		HTTP      `yaml:",inline"`
		Consumers map[string][]string `yaml:"consumers"`
	}
	standInBus struct {
		Queues   []string `yaml:"queues"`
		Exchange *struct {
			Name string `yaml:"name"`
		} `yaml:"exchange"`
	}
	standInPublish struct {
		Variants map[string]struct {
			Queue string `yaml:"queue"`
			Count int    `yaml:"count"`
		} `yaml:"variants"`
	}
)

func init() {
	RegisterSection("hello", HTTPSection)
	RegisterSection("fanout", HTTPSection)
	RegisterSection("cachequeue", NewSection[standInCachequeue]("", nil))
	RegisterSection("bus", NewSection[standInBus]("{queues: [QUEUE...], exchange: {name}}", nil))
	RegisterSection("publish", NewSection("", func(_ *Manifest, f string, s *standInPublish, add ProblemFunc) {
		for name, v := range s.Variants {
			if v.Count <= 0 {
				add(f+".variants."+name+".count", "not positive", "give a count")
			}
		}
	}))
}

// TestSectionOf: a declared section comes back typed, an undeclared one as a zero value; the
// routes of an HTTP workload come from the section that embeds HTTP.
func TestSectionOf(t *testing.T) {
	m, err := Parse([]byte("name: php-x\nlanguage: php\nvariants: [{name: a, mode: sync}]\nstart: {command: [php, x.php]}\nready: {tcp: listen}\n"+
		"workloads:\n  cachequeue: {routes: [/queue/zmq], consumers: {/queue/zmq: [php, z.php]}}\n  publish: {variants: {a: {queue: q, count: 3}}}\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := SectionOf[standInCachequeue](m, "cachequeue"); !ok || strings.Join(s.Consumers["/queue/zmq"], " ") != "php z.php" {
		t.Fatalf("cachequeue section %+v %v", s, ok)
	}
	if s, ok := SectionOf[standInPublish](m, "publish"); !ok || s.Variants["a"].Count != 3 {
		t.Fatalf("publish section %+v %v", s, ok)
	}
	if s, ok := SectionOf[standInBus](m, "bus"); ok || s == nil || s.Queues != nil {
		t.Fatalf("an undeclared section: %+v %v", s, ok)
	}
	if got := strings.Join(m.Routes("cachequeue"), " "); got != "/queue/zmq" || m.Routes("publish") != nil || m.Routes("bus") != nil {
		t.Fatalf("routes %q, publish %v, bus %v", got, m.Routes("publish"), m.Routes("bus"))
	}
}

// TestSectionKeys: the keys and help of a section come from the type its workload registered.
func TestSectionKeys(t *testing.T) {
	for w, want := range map[string]string{
		"cachequeue": "consumers routes", "bus": "exchange exchange.name queues",
		"publish": "variants variants.count variants.queue", "hello": "routes", "teleport": "",
	} {
		if got := strings.Join(SectionKeys(w), " "); got != want {
			t.Errorf("SectionKeys(%s) = %q, want %q", w, got, want)
		}
	}
	if got := SectionHelp("cachequeue"); got != "{consumers, routes}" {
		t.Errorf("cachequeue's help from its keys: %q", got)
	}
	if got := SectionHelp("bus"); got != "{queues: [QUEUE...], exchange: {name}}" {
		t.Errorf("bus's registered help: %q", got)
	}
	if got := strings.Join(httpWorkloads(), " "); got != "cachequeue fanout hello" {
		t.Errorf("httpWorkloads %q", got)
	}
}
