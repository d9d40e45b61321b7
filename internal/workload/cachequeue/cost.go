package cachequeue

import "github.com/iobench/iobench/internal/service"

// routeStore names the service that holds each route's store. The fake routes touch none, and
// ZeroMQ's messages go to iobench, which drains them (its cost is the generator's).
var routeStore = map[string]string{
	"/cache/memcached": "memcached", "/cache/redis": "redis", "/cache/predis": "redis",
	"/queue/redis": "redis", "/queue/predis": "redis",
}

// used returns the instance of the store route changes, for its cost in the record (web records
// it when iobench can see its processes); none for a route without a store.
func (a Addrs) used(route string) []*service.Instance {
	for _, inst := range a.services {
		if inst.Name == routeStore[route] {
			return []*service.Instance{inst}
		}
	}
	return nil
}
