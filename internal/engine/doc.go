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
// Connections are grouped into threads (wrk's -t): GOMAXPROCS is set to the thread count and each
// thread owns its histograms behind one mutex, so recording never allocates and the groups are merged
// exactly at the end. A ticker takes a snapshot every second for the per-second series.
package engine
