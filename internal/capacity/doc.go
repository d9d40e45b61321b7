// Package capacity finds the highest rate a service sustains at a service-level objective (SLO):
// `iobench http --find-max`. Each step is an open-loop run at one rate, measured on its own
// (StepFunc); a step passes when every SLO holds and the achieved rate is at least 99% of the
// target. A failing step is judged for why (judge): the service, the generator itself
// (generator-bound: its busiest thread near a full core, its threads waiting to run, or requests
// sent late while their connection was free), or too few connections (connection-starved).
// Only the first is the service's knee; the other two are run once more, then stop the search
// and say what to change.
//
// Search climbs (x2) to the first failing step, bisects to the precision, steps down (/2) when
// the first step fails, stops at the ceiling, then confirms the answer with three more passing
// runs, stepping down when one fails. It takes the step as a function, so that it is tested on
// simulated services without a network. Record is its section of the result record
// ("capacity"), registered here.
package capacity
