package cachequeue

import (
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/impl"
)

// TestManifestConsumers: a consumer is declared for a queue route with a store that the impl
// serves, with a command; anything else is a problem of the manifest, all reported at once.
func TestManifestConsumers(t *testing.T) {
	const head = "name: php-x\nlanguage: php\ndiffers: []\nvariants: [{name: sync, mode: sync}]\nstart: {php_fpm: {}}\nworkloads:\n  cachequeue:\n"
	good := head + "    routes: [/queue/zmq, /queue/redis]\n    consumers: {/queue/zmq: [php, zmqserver.php]}\n"
	m, err := impl.Parse([]byte(good), "")
	if err != nil {
		t.Fatal(err)
	}
	if got := ManifestOf(m).Consumers["/queue/zmq"]; strings.Join(got, " ") != "php zmqserver.php" || strings.Join(m.Routes(Name), " ") != "/queue/zmq /queue/redis" {
		t.Fatalf("consumers %v, routes %v", ManifestOf(m).Consumers, m.Routes(Name))
	}
	bad := head + "    routes: [/queue/zmq, /cache/redis]\n" +
		"    consumers: {/cache/redis: [php, x.php], /queue/redis: [php, redispopper.php], /queue/zmq: [], /queue/predis: [php, \"\"]}\n"
	_, err = impl.Parse([]byte(bad), "")
	for _, want := range []string{
		`workloads.cachequeue.consumers["/cache/redis"]: not a queue route with a store (give consumers to /queue/zmq, /queue/redis, /queue/predis)`,
		`workloads.cachequeue.consumers["/queue/redis"]: a route the impl does not serve`,
		`workloads.cachequeue.consumers["/queue/zmq"]: no command`,
		`workloads.cachequeue.consumers["/queue/predis"]: a route the impl does not serve`,
		`workloads.cachequeue.consumers["/queue/predis"]: no command`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
}
