// Package conformance is the one test suite every backend passes: Broker for message brokers
// and SQL for databases. A backend's own test opens a real service and calls it:
//
//	func TestConformance(t *testing.T) {
//		conformance.Broker(t, func(t *testing.T) backend.Broker { ... })
//	}
//
// The suite declares its own uniquely named queues and tables and removes them afterwards, so
// it can run against a shared server. It polls the broker's counts where a broker updates them
// asynchronously, and never sleeps.
package conformance
