// Package engine drives HTTP load: a closed loop (each connection sends its next request when the
// previous response is in, as wrk and ab do) or an open loop (requests scheduled at a fixed total
// rate whatever the server does, as wrk2 does).
//
// In the open loop every request has an intended start time from a fixed schedule, and its latency
// is measured from that time, not from when it was actually sent. A server that stalls therefore
// shows its stall in every request that should have been sent during it (no coordinated omission);
// the uncorrected latency (from the actual send) and the schedule lag (actual minus intended) are
// recorded beside it, so both views are visible.
//
// Connections are grouped into threads (wrk's -t), and each thread owns its histograms behind one
// mutex (taken by the ticker once a second), so recording never allocates and the groups are merged
// exactly at the end. Two engines drive them. The event loop (EngineLoop, the default on Linux)
// runs one goroutine per thread, locked to its OS thread, over an edge-triggered epoll instance and
// non-blocking sockets, each registered once; the goroutine engine (EngineGoroutine) runs one
// goroutine per connection on httpload.Conn, with GOMAXPROCS set to the thread count. Both
// account every request through the same code (run.account), so their records mean the same. A
// ticker takes a snapshot every second for the per-second series.
package engine
