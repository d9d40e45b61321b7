// Package busproto is what the bus workload's driver (package bus) and every consumer under test
// share: the modes and profiles a consumer runs in, the queues, the message bodies (Message) and
// the report stream a consumer writes on stdout (Report). The Go consumer (internal/impls/gobus)
// and the driver both import it; neither imports the other. Consumers in other languages speak
// the same protocol (docs/IMPLS.md).
//
// Bodies are JSON: {"type":"command","id":UUID,"name":"name_N","email":"name@qwerty.root","seq":N,
// "sent_ns":T} and {"type":"event","id":UUID,"seq":N,"sent_ns":T}; "type" tells them apart on a
// shared queue, seq and sent_ns are what the accounting needs.
//
// # The report stream, and why
//
// In the seed profile the consumer itself acks the events, so only it knows when each was handled.
// It says so on stdout, one line per message, each line whole in one write(2) before the ack
// (a write may carry several lines):
//
//	ready                 once consuming
//	c SEQ UNIX_NS R       command SEQ committed (R = 1 when the broker flagged a redelivery)
//	e SEQ UNIX_NS R       event SEQ handled
//	f SEQ UNIX_NS R       command SEQ's handler failed; the consumer rejects it (written before)
//	x                     a message that was neither, acked and dropped
//
// A failed command is error class "handler": seed 1's messenger, whose plain INSERT meets the
// row a redelivered command committed before a crash (finding redelivered-duplicate-key). A run
// whose only failures are findings its variant expects is "seed flaw reproduced" (FlawReproduced).
//
// Lines are tiny and need no database, broker or library, so a PHP, Python or Node consumer can
// speak it too; pipe writes this short are atomic, so handlers may share stdout without a lock.
// Because the line precedes the ack, a consumer killed with SIGKILL can only make the load side
// see a message twice (it was redelivered), never miss one it acked: at-least-once accounting.
// The load side keeps one counter byte and one send time per sequence number (9 bytes per
// command), so duplicates and misses are exact, and the tally survives any number of consumer
// restarts. A per-second aggregate would have been smaller but could neither find duplicates nor
// survive a kill; a table of handled events would have added database load to what is measured.
package busproto

import (
	"fmt"

	"github.com/iobench/iobench/internal/backend"
	"github.com/iobench/iobench/internal/fail"
)

// Modes of the consumer.
const (
	ModeSync  = "sync"  // one message at a time, one database connection
	ModeAsync = "async" // up to Concurrency messages in flight in one process
)

// Profiles of the topology.
const (
	// ProfileSeed is seed 1's topology: transient messages, no confirms, events published to the
	// tail of the command queue.
	ProfileSeed = "seed"
	// ProfileDurable uses persistent messages, publisher confirms and a separate durable event
	// queue, so that messages survive a broker restart.
	ProfileDurable = "durable"
)

// Queue names. Both are durable queues owned by iobench: a run deletes and recreates them.
const (
	CommandsQueue = "iobench.bus.commands"
	EventsQueue   = "iobench.bus.events"
)

// Defaults of the consumer, as in seed 1's service-bus (concurrency 80, prefetch 100).
const (
	DefaultConcurrency = 80
	DefaultPrefetch    = 100
)

// CheckModeProfile refuses a mode other than sync or async and a profile other than seed or
// durable, with fail.ErrBadInput.
func CheckModeProfile(mode, profile string) error {
	if mode != ModeSync && mode != ModeAsync {
		return fmt.Errorf("%w: mode %q; use sync or async", fail.ErrBadInput, mode)
	}
	if profile != ProfileSeed && profile != ProfileDurable {
		return fmt.Errorf("%w: profile %q; use seed or durable", fail.ErrBadInput, profile)
	}
	return nil
}

// CheckConcurrency refuses a concurrency or prefetch below 1, and an async prefetch below the
// concurrency (handlers would wait for messages), with fail.ErrBadInput.
func CheckConcurrency(mode string, concurrency, prefetch int) error {
	if concurrency < 1 {
		return fmt.Errorf("%w: concurrency %d; use at least 1", fail.ErrBadInput, concurrency)
	}
	if prefetch < 1 {
		return fmt.Errorf("%w: prefetch %d; use at least 1", fail.ErrBadInput, prefetch)
	}
	if mode == ModeAsync && prefetch < concurrency {
		return fmt.Errorf("%w: prefetch %d is below concurrency %d, so handlers would wait for messages; use --prefetch %d or more",
			fail.ErrBadInput, prefetch, concurrency, concurrency)
	}
	return nil
}

// Shape returns the number of handlers and the prefetch for a mode: sync takes one message at a
// time with prefetch 1 (as the seed's messenger, which polled with basic.get).
func Shape(mode string, concurrency, prefetch int) (handlers, pf int) {
	if mode == ModeSync {
		return 1, 1
	}
	return concurrency, prefetch
}

// EventPublisher is where a consumer sends events: to the tail of the command queue, transient,
// as in the seed; or to their own durable queue, persistent and confirmed.
func EventPublisher(profile string) backend.PublisherConfig {
	if profile == ProfileDurable {
		return backend.PublisherConfig{Queue: EventsQueue, Persistent: true, Confirm: true}
	}
	return backend.PublisherConfig{Queue: CommandsQueue}
}

// CommandPublisher is how the driver fills the command queue.
func CommandPublisher(profile string) backend.PublisherConfig {
	if profile == ProfileDurable {
		return backend.PublisherConfig{Queue: CommandsQueue, Persistent: true, Confirm: true}
	}
	return backend.PublisherConfig{Queue: CommandsQueue}
}
