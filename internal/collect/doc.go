// Package collect is the collector of a distributed run: an HTTP endpoint to which each agent
// (iobench http --agent I/N --collector URL) posts its record once it is done. Records may come
// in any order; a duplicate, a record of another run or split, or one that is not an agent's is
// refused with a one-line reason (HTTP 409 or 400, which the agent reports) and never merged; once
// every agent's record is in they are merged (internal/merge). Agents still missing when the wait
// ends are named. iobench collect (the Kubernetes collector's pod) and iobench http
// --agents-local both run it.
package collect
