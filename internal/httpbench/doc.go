// Package httpbench turns what a user asked for (a URL and wrk/ab-style options) into a checked
// engine run and a result record: it validates every option, checks the target answers before any
// load is sent, measures the generator's own cost, and adds the warnings a reader needs.
package httpbench
