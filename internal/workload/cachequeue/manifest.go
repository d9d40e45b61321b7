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

// manifestSection is what an impl declares under workloads.cachequeue: the routes it serves and, if it
// has them, the consumers iobench may run beside it, one command per queue route
// (consumers: {/queue/zmq: [php, zmqserver.php]}).
var manifestSection = impl.Section{Routes: true, Consumers: checkConsumers}

func checkConsumers(_ *impl.Manifest, f string, w impl.Workload, add func(field, msg, hint string)) {
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
