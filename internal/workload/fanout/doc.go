// Package fanout is the fanout workload (seed 5, appkr/quzzle-async-performance): a service
// that, for each request, calls an upstream and does some local work, with a sync and an async
// client, and a measured answer to "did the call and the work overlap?".
//
// A run starts iobench's own upstream (`iobench serve upstream`, Upstream: it answers
// {"foo":"bar"} after a delay, 10 ms by default, and counts what it was asked), then the impl
// with IOBENCH_UPSTREAM_URL, IOBENCH_WORK_MS and IOBENCH_LISTEN, and loads one of its routes the
// way ab does (-c connections, -n requests, or a duration; open loop too):
//
//   - /sync: call the upstream, then work;
//   - /async: the seed's shape: create the async call, work, then wait for it (whatever the
//     runtime makes of it: Guzzle sends nothing before wait(), a Python coroutine runs only when
//     awaited, a goroutine or a JavaScript promise starts at once);
//   - /async-overlap: the call and the work really concurrent.
//
// Work is WorkMS milliseconds during which the request makes no progress (usleep in the seed);
// each impl's manifest says how it does it, and an event-loop impl that awaits a timer says so.
//
// Three checks make the numbers deserve trust:
//   - The run drains (engine.Config.Drain): no request starts after the deadline and those in
//     flight finish, so the upstream's own count (GET /count) must equal the responses the
//     service sent over the whole run: exactly one call per request. A service making none, or
//     two, fails the run with the counts (Calls).
//   - Every response carries the impl's own handling time in a Server-Timing header
//     (app;dur=MS). The engine reads it from each counted success under the run's load
//     (engine.Config.Timing; the header is looked for only when asked, so plain HTTP runs pay
//     nothing), and Overlap = (delay + work) / median handling time: about 1 sequential, about
//     2 for 10 + 10 ms fully overlapped; Verdict says it in words ("no overlap").
//     Why from the run and not a separate probe: a probe at one connection measures the code's
//     shape, but not what happened under the run's concurrency (an event loop that a blocking
//     sleep stalls, a thread pool that queues); the record says how it was measured
//     (HandlingSource).
//   - The median and the tail are reported apart, and an async run is set beside its sync peer
//     (Compare), so a gap made by a few outliers, as in the seed, cannot pass as a speed-up.
package fanout
