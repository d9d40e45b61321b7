// Package conformance is the one test suite every backend passes, per capability: Broker for
// message brokers, SQL for databases, KV for counter stores and WorkQueue for work queues. A
// backend's own test opens a real service and calls it:
//
//	func TestConformance(t *testing.T) {
//		conformance.Broker(t, func(t *testing.T) backend.Broker { ... })
//	}
//
// The suite declares its own uniquely named queues, tables and keys and removes them afterwards, so
// it can run against a shared server. It polls the broker's counts where a broker updates them
// asynchronously, and sleeps only to let a Pop start waiting before the Push it waits for.
package conformance
