// Package agent splits one load run among N agents so that together they send what one generator
// would: agent I of N takes its share of the connections (and of a request count), remainders
// dealt one each to the first agents, and in an open loop every N-th request of the one
// generator's schedule, starting with request I. That is the engine's own schedule at rate R/N
// over the agent's connections, shifted by I/R: the union of the agents' intended starts is the
// schedule of one generator at R (TestScheduleUnion). --start-at gives every agent one
// wall-clock instant at which to begin measuring, after its own warm-up; the record then carries
// the agent's id, the run it belongs to, when it was asked to start and when it did, and a series
// keyed by wall-clock time, which internal/merge aligns.
package agent
