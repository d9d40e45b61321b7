package cachequeue

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/iobench/iobench/internal/impl"
)

// Consumable are the routes whose messages a consumer can take: the queue routes with a store.
var Consumable = []string{"/queue/zmq", "/queue/redis", "/queue/predis"}

// Manifest is what an impl declares under workloads.cachequeue: the routes it serves and, if it
// has them, the consumers iobench may run beside it, one command per queue route
// (consumers: {/queue/zmq: [php, zmqserver.php]}), run in the impl's folder.
type Manifest struct {
	impl.HTTP `yaml:",inline"`
	Consumers map[string][]string `yaml:"consumers"`
	// RestartRedis and RestartMemcached list the variants that reconnect after a restart of that
	// store: only they take --fault restart-redis, restart-memcached.
	RestartRedis     []string `yaml:"restart_redis"`
	RestartMemcached []string `yaml:"restart_memcached"`
}

// restarts says whether variant opts in to a restart of the store svc.
func (m *Manifest) restarts(svc, variant string) bool {
	switch svc {
	case RedisRole.Name:
		return slices.Contains(m.RestartRedis, variant)
	case MemcachedRole.Name:
		return slices.Contains(m.RestartMemcached, variant)
	}
	return false
}

// manifestSection is cachequeue's manifest section, registered with the workload.
var manifestSection = impl.NewSection("{routes: [PATH...], consumers: {QUEUE-ROUTE: [command...]}, restart_redis: [VARIANT...], restart_memcached: [VARIANT...]}", checkConsumers)

// ManifestOf returns the cachequeue section m declares (a zero one when it declares none).
func ManifestOf(m *impl.Manifest) *Manifest {
	s, _ := impl.SectionOf[Manifest](m, Name)
	return s
}

func checkConsumers(_ *impl.Manifest, f string, w *Manifest, add impl.ProblemFunc) {
	routes := make([]string, 0, len(w.Consumers))
	for r := range w.Consumers {
		routes = append(routes, r)
	}
	sort.Strings(routes)
	for _, r := range routes {
		field := fmt.Sprintf("%s.consumers[%q]", f, r)
		switch {
		case !slices.Contains(Consumable, r):
			add(field, "not a queue route with a store", "give consumers to "+strings.Join(Consumable, ", "))
		case !slices.Contains(w.Routes, r):
			add(field, "a route the impl does not serve", "add it to routes, or drop its consumer")
		}
		if argv := w.Consumers[r]; len(argv) == 0 || slices.Contains(argv, "") {
			add(field, "no command", "give the command as a list, run in the impl's folder, e.g. [php, zmqserver.php]")
		}
	}
}
