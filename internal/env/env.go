// Package env is the environment contract between iobench and the systems under test it starts,
// defined once: every IOBENCH_* variable a SUT may read, and those iobench reads for itself.
// docs/IMPLS.md ("The IOBENCH_* environment") explains each to impl authors.
package env

// Variables handed to a system under test. A SUT sees only those that its run sets: the runner
// removes every other IOBENCH_* variable inherited from iobench's own environment.
const (
	Listen        = "IOBENCH_LISTEN"            // host:port an HTTP SUT listens on
	AMQPURL       = "IOBENCH_AMQP_URL"          // RabbitMQ, amqp://user:pass@host:port/vhost
	NATSURL       = "IOBENCH_NATS_URL"          // NATS with JetStream, nats://host:port
	DatabaseURL   = "IOBENCH_DATABASE_URL"      // postgres://... or sqlite:///path
	RedisURL      = "IOBENCH_REDIS_URL"         // redis://host:port
	MemcachedAddr = "IOBENCH_MEMCACHED_ADDR"    // host:port
	ZMQEndpoint   = "IOBENCH_ZMQ_ENDPOINT"      // ipc:///path or tcp://host:port
	UpstreamURL   = "IOBENCH_UPSTREAM_URL"      // the fanout workload's upstream, http://host:port/
	UpstreamDelay = "IOBENCH_UPSTREAM_DELAY_MS" // fanout: how long the upstream waits before answering, in ms
	WorkMS        = "IOBENCH_WORK_MS"           // fanout: the milliseconds of work per request
	Concurrency   = "IOBENCH_CONCURRENCY"       // operations in flight (async), or threads/processes
	Prefetch      = "IOBENCH_PREFETCH"          // unacked messages a consumer may hold
	Mode          = "IOBENCH_MODE"              // sync or async
	Variant       = "IOBENCH_VARIANT"           // the manifest variant this run selected
	BusProfile    = "IOBENCH_BUS_PROFILE"       // bus: seed or durable
	Queue         = "IOBENCH_QUEUE"             // publish: the queue to publish to
	QueueDurable  = "IOBENCH_QUEUE_DURABLE"     // publish: 1 when iobench declared the queue durable
	Count         = "IOBENCH_COUNT"             // publish: messages to publish
	Persistent    = "IOBENCH_PERSISTENT"        // publish: 1 for delivery mode 2
	Confirm       = "IOBENCH_CONFIRM"           // publish: 1 for publisher confirms
)

// Variables iobench reads for itself; none of them reaches a SUT.
const (
	StateDir      = "IOBENCH_STATE_DIR"      // where services, impl installs and runner records live
	ImplsDir      = "IOBENCH_IMPLS_DIR"      // the impls/ folder to use instead of the one found
	HTTPInProcess = "IOBENCH_HTTP_INPROCESS" // 1 keeps `iobench http` from handing off to iobench-http
)

// Prefix starts every variable of this contract.
const Prefix = "IOBENCH_"
