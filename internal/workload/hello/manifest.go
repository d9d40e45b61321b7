package hello

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/iobench/iobench/internal/impl"
)

// The protocols a hello variant is loaded over.
const (
	// ProtocolHTTP1 is HTTP/1.1, one request in flight per connection: every variant's unless
	// its manifest says otherwise.
	ProtocolHTTP1 = "http/1.1"
	// ProtocolH2C is HTTP/2 with prior knowledge on plain TCP (`iobench http
	// --http2-prior-knowledge`), with the run's streams per connection.
	ProtocolH2C = "h2c"
)

// protocols are the values a manifest's protocols: may give.
var protocols = []string{ProtocolHTTP1, ProtocolH2C}

// Manifest is what a hello impl's manifest declares under workloads.hello: its routes, and the
// protocol each variant is loaded over where it is not HTTP/1.1 (protocols: {http2: h2c}).
type Manifest struct {
	impl.HTTP `yaml:",inline"`
	// Protocols maps a variant's name to its protocol; a variant left out speaks HTTP/1.1.
	Protocols map[string]string `yaml:"protocols"`
}

// section is hello's manifest section, registered with the workload.
var section = impl.NewSection("{routes: [PATH...], protocols: {VARIANT: h2c}}", checkSection)

// checkSection checks protocols: each names a variant of the impl and a known protocol.
func checkSection(m *impl.Manifest, f string, s *Manifest, add impl.ProblemFunc) {
	for _, v := range slices.Sorted(maps.Keys(s.Protocols)) {
		ff := f + ".protocols." + v
		if !slices.Contains(m.VariantNames(), v) {
			add(ff, fmt.Sprintf("unknown variant %q", v), "use one of "+strings.Join(m.VariantNames(), ", "))
		}
		if p := s.Protocols[v]; !slices.Contains(protocols, p) {
			add(ff, fmt.Sprintf("unknown protocol %q", p), "use one of "+strings.Join(protocols, ", "))
		}
	}
}

// ProtocolOf returns the protocol m's variant (its first for "") is loaded over: what its
// manifest's protocols: says, else ProtocolHTTP1.
func ProtocolOf(m *impl.Manifest, variant string) string {
	s, _ := impl.SectionOf[Manifest](m, Name)
	if v, ok := m.Variant(variant); ok {
		if p := s.Protocols[v.Name]; p != "" {
			return p
		}
	}
	return ProtocolHTTP1
}
