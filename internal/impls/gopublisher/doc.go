// Package gopublisher is seed 2's Go publisher under test, compiled into iobench apart from the
// publish workload that drives it (internal/workload/publish prepares the queue and counts at
// the broker). It has two forms, both publishing through backend.Publisher (package
// backend/amqp) to the default exchange:
//
//   - Publisher: one goroutine of `iobench publish`'s built-in run, in iobench's own process
//     (-P of them, a quota or a duration each, an optional confirm window), whose client-side
//     counts the workload reads every second;
//   - Serve: the go-publisher impl (impls/go/publisher, `iobench serve publisher`), a process of
//     its own speaking the one-shot publisher contract of docs/IMPLS.md, as the Python
//     publishers do.
//
// Both write the bodies of body.go (binary with a bookkeeping header, or seed 2's JSON), which
// the workload's consumers read back with Decode.
package gopublisher
