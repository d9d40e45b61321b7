package scenario

import (
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/iobench/iobench/internal/cpuset"
)

// CPUs pins a scenario's processes to CPUs of their own (`cpus: {generator: "0", sut: "1"}`), so
// that the generator and the system under test do not share cores. Zero sets pin nothing.
type CPUs struct {
	Generator cpuset.Set // iobench's own threads while a run measures
	SUT       cpuset.Set // the impl and every process it starts
}

// cpusKeys are the keys of a cpus: block.
var cpusKeys = []string{"generator", "sut"}

// cpus reads a scenario's cpus: block; every CPU must be one this machine lets iobench use.
func (p *parser) cpus(n *yaml.Node) CPUs {
	var out CPUs
	if n == nil {
		return out
	}
	m := resolve(n)
	if m == nil || m.Kind != yaml.MappingNode {
		p.errNode(n, "cpus must be a mapping of generator and sut to CPU lists", `e.g. cpus: {generator: "0", sut: "1"}`)
		return out
	}
	for k, v := range p.fields(m, "cpus", cpusKeys) {
		r := resolve(v)
		if r == nil || r.Kind != yaml.ScalarNode {
			p.errNode(v, fmt.Sprintf("cpus %s must be a CPU list such as \"1\" or \"0-1\"", k), "")
			continue
		}
		set, err := cpuset.Parse(r.Value)
		if err != nil {
			p.errNode(v, "cpus "+k+": "+err.Error(), "list the CPUs of this machine: nproc, or /sys/devices/system/cpu/online")
			continue
		}
		if k == "generator" {
			out.Generator = set
		} else {
			out.SUT = set
		}
	}
	return out
}
