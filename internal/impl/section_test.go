package impl

import (
	"strings"
	"testing"
)

// The workloads register their manifest sections from their own packages, which import this
// one, so these tests register stand-ins: fanout as it is (routes only), hello and cachequeue of
// their shapes (routes and protocols; routes and consumers), bus and publish taking any keys (their keys and
// rules are their packages' tests', and cmd/iobench's TestRepoImpls loads every shipped manifest
// with the real sections), so that the repo's impls load here. toy is a strict section of this
// test's own: nested keys, typed values and a rule of its workload.
type (
	standInHello struct {
		HTTP      `yaml:",inline"`
		Protocols map[string]string `yaml:"protocols"`
	}
	standInCachequeue struct {
		HTTP             `yaml:",inline"`
		Consumers        map[string][]string `yaml:"consumers"`
		RestartRedis     []string            `yaml:"restart_redis"`
		RestartMemcached []string            `yaml:"restart_memcached"`
	}
	toySection struct {
		Greeting struct {
			Word   string `yaml:"word"`
			Repeat int    `yaml:"repeat"`
		} `yaml:"greeting"`
	}
)

func init() {
	RegisterSection("hello", NewSection[standInHello]("", nil))
	RegisterSection("fanout", HTTPSection)
	RegisterSection("cachequeue", NewSection[standInCachequeue]("", nil))
	RegisterSection("bus", NewSection[map[string]any]("", nil))
	RegisterSection("publish", NewSection[map[string]any]("", nil))
	RegisterSection("toy", NewSection("{greeting: {word, repeat}}", func(_ *Manifest, f string, s *toySection, add ProblemFunc) {
		if s.Greeting.Repeat <= 0 {
			add(f+".greeting.repeat", "not positive", "greet at least once")
		}
	}))
}

// TestSectionOf: a declared section comes back typed, an undeclared one as a zero value; the
// routes of an HTTP workload come from the section that embeds HTTP.
func TestSectionOf(t *testing.T) {
	m, err := Parse([]byte("name: php-x\nlanguage: php\ndiffers: []\nvariants: [{name: a, mode: sync}]\nstart: {command: [php, x.php]}\nready: {tcp: listen}\n"+
		"workloads:\n  cachequeue: {routes: [/queue/zmq], consumers: {/queue/zmq: [php, z.php]}}\n  toy: {greeting: {word: hi, repeat: 3}}\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := SectionOf[standInCachequeue](m, "cachequeue"); !ok || strings.Join(s.Consumers["/queue/zmq"], " ") != "php z.php" {
		t.Fatalf("cachequeue section %+v %v", s, ok)
	}
	if s, ok := SectionOf[toySection](m, "toy"); !ok || s.Greeting.Word != "hi" || s.Greeting.Repeat != 3 {
		t.Fatalf("toy section %+v %v", s, ok)
	}
	if s, ok := SectionOf[toySection](m, "cachequeue"); ok || s == nil || s.Greeting.Word != "" {
		t.Fatalf("a section of another type: %+v %v", s, ok)
	}
	if s, ok := SectionOf[standInCachequeue](m, "hello"); ok || s == nil || s.Routes != nil {
		t.Fatalf("an undeclared section: %+v %v", s, ok)
	}
	if got := strings.Join(m.Routes("cachequeue"), " "); got != "/queue/zmq" || m.Routes("toy") != nil || m.Routes("hello") != nil {
		t.Fatalf("routes %q, toy %v, hello %v", got, m.Routes("toy"), m.Routes("hello"))
	}
}

// TestSectionKeys: the keys and help of a section come from the type its workload registered.
func TestSectionKeys(t *testing.T) {
	for w, want := range map[string]string{
		"cachequeue": "consumers restart_memcached restart_redis routes", "toy": "greeting greeting.repeat greeting.word", "hello": "protocols routes", "fanout": "routes", "bus": "", "teleport": "",
	} {
		if got := strings.Join(SectionKeys(w), " "); got != want {
			t.Errorf("SectionKeys(%s) = %q, want %q", w, got, want)
		}
	}
	if got := SectionHelp("cachequeue"); got != "{consumers, restart_memcached, restart_redis, routes}" {
		t.Errorf("cachequeue's help from its keys: %q", got)
	}
	if got := SectionHelp("toy"); got != "{greeting: {word, repeat}}" {
		t.Errorf("toy's registered help: %q", got)
	}
	if got := strings.Join(httpWorkloads(), " "); got != "cachequeue fanout hello" {
		t.Errorf("httpWorkloads %q", got)
	}
}
